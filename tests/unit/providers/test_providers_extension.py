"""Providers plug in as the extension "providers" (issue 52): a plain run never imports it and
works without its registry line; `provider` asks for it, and a run asking for Bedrock without
it is one line, exit 2. Aliases resolve through the settings, the variables over the files."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from agent_cli.core.errors import ConfigError
from agent_cli.core.options import Options
from agent_cli.core.settings.models import aliases, resolve_model
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.build import build_runtime
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from agent_cli.ui.slash import commands as slash
from agent_cli.ui.slash.host import Host
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic
from tests.unit.ui.test_extension_slash import FakeHost

REPO = Path(__file__).resolve().parents[3]
WITHOUT = [d for d in BUILTINS if d.name != "providers"]


@pytest.mark.usefixtures("sdk_env", "sandbox_off")
def test_a_run_works_without_the_providers_extension(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    fake_model.script.text("hello")
    options = Options(workspace=tmp_path, one_shot=True)
    runtime = build_runtime(options, quiet=True, extensions=discover(path=[], builtins=WITHOUT))
    asyncio.run(drive(runtime, "hi"))
    assert [b["model"] for b in fake_model.bodies()] == ["claude-sonnet-4-6"]


def test_bedrock_without_the_extension_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_PROVIDER", "bedrock")
    options = Options(workspace=tmp_path, one_shot=True)
    with pytest.raises(ConfigError, match="provider 'bedrock': no extension reaches it"):
        build_runtime(options, quiet=True, extensions=discover(path=[], builtins=WITHOUT))


def test_a_plain_run_never_imports_it_and_provider_asks_for_it():
    code = textwrap.dedent(
        """
        import sys
        from agent_cli.runtime.extensions.discovery import Asking
        from agent_cli.runtime.extensions.registry import discover

        plain = discover(path=[], asking=Asking(frozenset(), command="run"))
        loaded = [m for m in sys.modules if m.startswith("agent_cli.ext.providers")]
        print("providers" in plain.dormant, loaded)
        asked = discover(path=[], asking=Asking(frozenset({"provider"}), command="run"))
        print("providers" in asked.names())
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]", "True"]


def test_aliases_resolve_through_settings_variables_over_files(monkeypatch: pytest.MonkeyPatch):
    for variable in ("ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    settings = Settings(model_aliases={"sonnet": "local-mid", "Fast": "local-tiny"})
    assert resolve_model("sonnet", settings) == "local-mid"
    assert resolve_model(" fast ", settings) == "local-tiny"
    assert resolve_model("opus", settings) == "claude-opus-4-6"  # naming one keeps the others
    assert resolve_model("claude-opus-4-6", Settings()) == "claude-opus-4-6"
    assert resolve_model("haiku", Settings()) == "claude-haiku-4-5"
    monkeypatch.setenv("ANTHROPIC_DEFAULT_SONNET_MODEL", "gpt-oss:20b")
    assert resolve_model("sonnet", settings) == "gpt-oss:20b"
    files = Settings.model_validate({"project_files": {"model_aliases": {"sonnet": "x"}}})
    assert aliases(files)["sonnet"] == "x"  # project files' own, the most specific


def test_slash_model_offers_the_endpoints_models(tmp_path: Path):
    extensions = discover(path=[], builtins=BUILTINS, asking=Asking(frozenset({"provider"})))
    host = FakeHost(extensions, tmp_path)
    settings = Settings(provider="bedrock", model="claude-haiku-4-5")
    host.runtime.settings = settings
    host.runtime.session = SimpleNamespace(**vars(host.runtime.session), model=settings.model)
    slash.run(cast(Host, host), "/model")
    [work] = host.started
    asyncio.run(_drain(work))
    said = "\n".join(text for text, _ in host.said).splitlines()
    assert said[0] == "Model: claude-haiku-4-5"
    assert "* global.anthropic.claude-haiku-4-5-20251001-v1:0  (haiku)" in said
    assert "  global.anthropic.claude-sonnet-4-6  (sonnet)" in said


async def _drain(work: object) -> None:
    async for _ in work():  # type: ignore[operator]
        pass
