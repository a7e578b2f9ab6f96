"""ask_user: the model asks the user 1 to 4 questions with options (SPEC §5). The front end's
`ToolContext.ask` port answers; without a user the model is told to decide and go on."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agent_cli.core.asking import NOBODY_TO_ASK, Question, answers_text
from agent_cli.core.events import Answered, QuestionAsked
from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult, current_call_id


class AskUserInput(ToolInput):
    questions: Annotated[list[Question], Field(min_length=1, max_length=4)] = Field(
        description="1 to 4 questions, asked one after the other."
    )


class AskUser(Tool[AskUserInput]):
    name = "ask_user"
    input_model = AskUserInput
    # touches nothing: allowed in every mode, plan included
    read_only = True

    def describe_call(self, args: AskUserInput) -> str:
        return f"ask_user ({counted(len(args.questions), 'question')})"

    async def run(self, args: AskUserInput, ctx: ToolContext) -> ToolResult:
        call_id = current_call_id.get() or "call"
        ctx.emit(QuestionAsked(id=call_id, questions=args.questions))
        answers = await ctx.ask(args.questions)
        if answers is None:
            ctx.emit(Answered(id=call_id, nobody=True))
            return ToolResult(NOBODY_TO_ASK, summary="ask_user: nobody to ask")
        ctx.emit(Answered(id=call_id, answers=answers))
        return ToolResult(answers_text(answers), summary=f"ask_user ({len(answers)} answered)")
