"""Judges that run in-process, for engine tests that need a judge but not a server."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from smartsearch_ls.judge.contract import JudgeConfig
from tests.support.model_servers import coverage


def coverage_judge() -> JudgeConfig:
    """The loopback server's rule, in-process: relevance = (share of query words in the code) ** 2."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        query = str(messages[-1].instructions).rsplit(": ", 1)[-1]  # type: ignore[union-attr]
        code = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        p = coverage(query, code)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"subject": p, "action": p})])

    return JudgeConfig(FunctionModel(answer), "function")
