"""The Gemini stream types, as its REST API's JSON spells them
(``GenerateContentResponse``; google-genai's models, in camelCase).

``TypedDict`` shapes for the plain dicts on the wire: each record of
``streamGenerateContent`` is a ``GenerateContentResponse`` holding the newest
piece of each candidate, or an ``ErrorRecord``. The assembled response has
the same shape, whole. Every record may carry more keys than listed, and
agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .._vocabulary import tables

__all__ = [
    "FINISH_REASONS",
    "Blob",
    "Candidate",
    "Content",
    "ErrorRecord",
    "FileData",
    "FunctionCall",
    "GenerateContentResponse",
    "PartialArg",
    "Part",
    "Record",
    "UsageMetadata",
]

#: The reasons a candidate finishes (the API's ``FinishReason``).
FINISH_REASONS = tables("gemini")["FINISH_REASONS"]


class PartialArg(TypedDict, total=False):
    """A piece of a function call's arguments, as Vertex AI streams them."""

    jsonPath: str
    stringValue: str
    numberValue: float
    boolValue: bool
    nullValue: str
    willContinue: bool


class FunctionCall(TypedDict, total=False):
    id: str
    name: str
    args: dict[str, Any]
    partialArgs: list[PartialArg]
    willContinue: bool


class Blob(TypedDict, total=False):
    mimeType: str
    data: str


class FileData(TypedDict, total=False):
    mimeType: str
    fileUri: str


class Part(TypedDict, total=False):
    text: str
    thought: bool
    thoughtSignature: str
    functionCall: FunctionCall
    functionResponse: dict[str, Any]
    inlineData: Blob
    fileData: FileData
    executableCode: dict[str, Any]
    codeExecutionResult: dict[str, Any]


class Content(TypedDict, total=False):
    role: str
    parts: list[Part]


class Candidate(TypedDict, total=False):
    content: Content
    finishReason: str
    finishMessage: str
    index: int
    safetyRatings: list[dict[str, Any]]
    citationMetadata: dict[str, Any]
    groundingMetadata: dict[str, Any]
    avgLogprobs: float
    logprobsResult: dict[str, Any]


class UsageMetadata(TypedDict, total=False):
    promptTokenCount: int
    cachedContentTokenCount: int
    candidatesTokenCount: int
    thoughtsTokenCount: int
    toolUsePromptTokenCount: int
    totalTokenCount: int


class GenerateContentResponse(TypedDict, total=False):
    """A record of the stream, and the response whole."""

    candidates: list[Candidate]
    promptFeedback: dict[str, Any]
    usageMetadata: UsageMetadata
    modelVersion: str
    responseId: str
    createTime: str
    error: dict[str, Any]


class ErrorRecord(TypedDict):
    """The record a failed stream ends with: ``{"code", "message", "status"}``."""

    error: dict[str, Any]


#: Any record of the stream.
Record = GenerateContentResponse | ErrorRecord
