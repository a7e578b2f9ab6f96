"""`agent run --json-schema`: the final answer as a JSON value valid against a schema.

The model is offered one more tool, `structured_output`, whose input schema is the user's
(wrapped in an object when it is not one). Each call is validated here: the first invalid value
goes back with the validation errors, once; a second invalid value ends the tries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ConfigDict

from agent_cli.core.errors import UsageError
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult

NAME = "structured_output"
DESCRIPTION = (
    "Give your final answer by calling this tool exactly once, with a value valid against its "
    "input schema. Do the work first; then call it; then end your turn."
)


def load_schema(spec: str) -> dict[str, Any]:
    """A file's JSON, or inline JSON; a usage error (exit 2) naming the flag otherwise."""
    path = Path(spec).expanduser()
    try:
        text = path.read_text() if not spec.lstrip().startswith("{") and path.is_file() else spec
        schema = json.loads(text)
    except (OSError, ValueError) as e:
        raise UsageError(f"--json-schema: not a JSON schema file or inline JSON ({e}).") from None
    if not isinstance(schema, dict):
        raise UsageError("--json-schema: the schema must be a JSON object.")
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        raise UsageError(f"--json-schema: invalid schema: {e.message}") from None
    return schema


class StructuredInput(ToolInput):
    """Any JSON object: validated against the user's schema by the tool itself."""

    model_config = ConfigDict(extra="allow")


class StructuredOutput(Tool[StructuredInput]):
    name: ClassVar[str] = NAME
    input_model = StructuredInput
    read_only: ClassVar[bool] = True

    def __init__(self, schema: dict[str, Any]) -> None:
        self.wrapped = schema.get("type") != "object"
        self.user_schema = schema
        self.input_schema = (
            {"type": "object", "properties": {"value": schema}, "required": ["value"]}
            if self.wrapped
            else schema
        )
        self.value: Any = None
        self.valid = False
        self.invalid_tries = 0

    def schema(self) -> dict[str, Any]:
        return {"name": NAME, "description": DESCRIPTION, "input_schema": self.input_schema}

    def problems(self, value: Any) -> list[str]:
        import jsonschema

        validator = jsonschema.validators.validator_for(self.user_schema)(self.user_schema)
        found = []
        for error in validator.iter_errors(value):
            where = "/".join(str(p) for p in error.absolute_path)
            found.append(f"- {where or '(value)'}: {error.message}")
        return found

    async def run(self, args: StructuredInput, ctx: ToolContext) -> ToolResult:
        if self.valid or self.invalid_tries >= 2:
            return ToolResult("No more values are taken. End your turn.", is_error=True)
        raw = args.model_dump()
        value = raw.get("value") if self.wrapped else raw
        problems = self.problems(value)
        if not problems:
            self.value, self.valid = value, True
            return ToolResult("Recorded. End your turn now.", summary=f"{NAME}: recorded")
        self.invalid_tries += 1
        errors = "\n".join(problems)
        if self.invalid_tries == 1:
            text = f"The value is not valid against the schema:\n{errors}\nFix it and call again."
        else:
            text = f"The value is still not valid:\n{errors}\nNo more tries. End your turn."
        return ToolResult(text, is_error=True, summary=f"{NAME}: invalid")
