"""ask_user: the model asks the user 1 to 4 questions with options (SPEC §5). The front end's
`ToolContext.ask` port answers; without a user the model is told to decide and go on."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agent_cli.core.asking import NOBODY_TO_ASK, Answer, Question, answers_text
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
        return ToolResult(answers_text(answers), summary=summary(answers))


def summary(answers: list[Answer]) -> str:
    """`ask_user (1 answered, 1 declined)`: a question declined (Esc) was not answered."""
    declined = sum(answer.declined for answer in answers)
    answered = len(answers) - declined
    parts = [f"{answered} answered"] if answered or not declined else []
    parts += [f"{declined} declined"] if declined else []
    return f"ask_user ({', '.join(parts)})"
