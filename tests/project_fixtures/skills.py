"""Agent Skill folders in the shapes real repositories use (written for this suite): a name
that differs from the folder, no name, block and quoted descriptions, allowed-tools in every
list style, `disable-model-invocation`, `user-invocable: false`, siblings referenced by path.

Each entry: (folder, SKILL.md text, expected name, expected tools (ours), model-invocable,
sibling files {relative path: text}).
"""

from __future__ import annotations

SKILLS: list[tuple[str, str, str, list[str], bool, dict[str, str]]] = [
    ("pdf-forms",
     "---\nname: pdf-forms\ndescription: Fill in PDF forms and extract their fields. Use when "
     "the user mentions PDF forms.\n---\n# PDF forms\nSee references/fields.md for field types.\n",
     "pdf-forms", [], True, {"references/fields.md": "Text fields, check boxes, radio groups.\n"}),
    ("csharp",
     "---\nname: csharp-conventions\ndescription: C# coding conventions for this repository.\n"
     "allowed-tools: Read, Grep, Glob\n---\nUse file-scoped namespaces.\n",
     "csharp-conventions", ["read_file", "grep", "glob"], True,
     {"references/patterns.md": "Prefer records for DTOs.\n"}),
    ("no-name",
     "---\ndescription: A skill without a name line.\n---\nBody.\n",
     "no-name", [], True, {}),
    ("literal",
     "---\nname: literal\ndescription: |\n  Database migrations.\n  Use for schema changes.\n---\n"
     "Body.\n",
     "literal", [], True, {}),
    ("folded",
     "---\nname: folded\ndescription: >\n  Release notes from git history.\n  Use before a "
     "release.\n---\nBody.\n",
     "folded", [], True, {}),
    ("single-quoted",
     "---\nname: single-quoted\ndescription: 'Quoted: docker compose files'\n---\nBody.\n",
     "single-quoted", [], True, {}),
    ("double-quoted",
     "---\nname: double-quoted\ndescription: \"Kubernetes manifests: review and lint\"\n---\n"
     "Body.\n",
     "double-quoted", [], True, {}),
    ("block-tools",
     "---\nname: block-tools\ndescription: Tools as a block list.\nallowed-tools:\n  - Read\n"
     "  - Bash\n---\nBody.\n",
     "block-tools", ["read_file", "bash"], True, {}),
    ("space-tools",
     "---\nname: space-tools\ndescription: Space separated tools.\nallowed-tools: Read Grep\n---\n"
     "Body.\n",
     "space-tools", ["read_file", "grep"], True, {}),
    ("json-tools",
     "---\nname: json-tools\ndescription: JSON list of tools.\nallowed-tools: [\"Bash(qmd:*)\", "
     "\"Read\"]\n---\nBody.\n",
     "json-tools", ["bash", "read_file"], True, {}),
    ("manual-only",
     "---\nname: manual-only\ndescription: Deploys to production.\ndisable-model-invocation: true"
     "\n---\nDeploy.\n",
     "manual-only", [], False, {}),
    ("not-user",
     "---\nname: not-user\ndescription: Background knowledge only.\nuser-invocable: false\n---\n"
     "Body.\n",
     "not-user", [], True, {}),
    ("colon-fails",
     "---\nname: colon-fails\ndescription: Use when: tests fail: flaky ones\n---\nBody.\n",
     "colon-fails", [], True, {}),
    ("hint",
     "---\nname: hint\ndescription: Takes an argument.\nargument-hint: \"[topic]\"\n---\n"
     "Topic: $ARGUMENTS\n",
     "hint", [], True, {}),
    ("crlf-skill",
     "---\r\nname: crlf-skill\r\ndescription: Windows line endings.\r\n---\r\nBody.\r\n",
     "crlf-skill", [], True, {}),
    ("bom-skill",
     "\ufeff---\nname: bom-skill\ndescription: Byte-order mark.\n---\nBody.\n",
     "bom-skill", [], True, {}),
    ("no-front",
     "# Changelog helper\n\nWrites CHANGELOG entries from commits.\n",
     "no-front", [], True, {}),
    ("metadata",
     "---\nname: metadata\ndescription: Has metadata and a license.\nlicense: MIT\nmetadata:\n"
     "  version: 1.2\n  author: someone\n---\nBody.\n",
     "metadata", [], True, {}),
    ("scripts",
     "---\nname: scripts\ndescription: Runs the verify script.\nallowed-tools: Bash(*)\n---\n"
     "Run scripts/verify.sh.\n",
     "scripts", ["bash"], True, {"scripts/verify.sh": "#!/bin/sh\necho verified\n"}),
    ("mcp-skill",
     "---\nname: mcp-skill\ndescription: Queries BigQuery.\nallowed-tools: "
     "mcp__bigquery__run_query, Read\n---\nBody.\n",
     "mcp-skill", ["mcp__bigquery__run_query", "read_file"], True, {}),
    ("unknown-tools",
     "---\nname: unknown-tools\ndescription: Asks questions.\nallowed-tools: AskUserQuestion, "
     "Agent\n---\nBody.\n",
     "unknown-tools", ["task"], True, {}),
    ("cjk-skill",
     "---\nname: cjk-skill\ndescription: 게임 엔진 렌더링 가이드\n---\n본문.\n",
     "cjk-skill", [], True, {}),
    ("templates",
     "---\nname: templates\ndescription: Ticket templates.\n---\nUse assets/templates/bug.md.\n",
     "templates", [], True, {"assets/templates/bug.md": "## Bug\nSteps:\n"}),
    ("extra-keys",
     "---\nname: extra-keys\ndescription: Keys we ignore.\nversion: 2\ntriggers: [a, b]\n"
     "context: fork\n---\nBody.\n",
     "extra-keys", [], True, {}),
    ("model-skill",
     "---\nname: model-skill\ndescription: Has a model.\nmodel: opus\n---\nBody.\n",
     "model-skill", [], True, {}),
    ("wrapped",
     "---\nname: wrapped\ndescription: A plain scalar\n  continued on an indented line.\n---\n"
     "Body.\n",
     "wrapped", [], True, {}),
]
