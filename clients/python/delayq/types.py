"""The shapes of the HTTP API (the server's OpenAPI document at /openapi.json) as TypedDicts."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

JobState = Literal["delayed", "ready", "reserved", "finished", "dead", "cancelled", "expired"]
#: Milliseconds, or a text such as "500ms", "30s", "4m", "1h", "2d".
Duration = Union[int, str]


class RetryPolicy(TypedDict):
    maxAttempts: int
    backoff: Dict[str, Any]


class _JobGroup(TypedDict, total=False):
    #: The job's group (a tenant, a merchant); absent when it has none.
    group: str


class Job(_JobGroup):
    id: str
    topic: str
    tag: Optional[str]
    bizKey: Optional[str]
    body: Any
    state: JobState
    runAt: int
    priority: int
    ttrMs: int
    ttlMs: Optional[int]
    retry: RetryPolicy
    attempts: int
    lastError: Optional[str]
    createdAt: int
    readyAt: Optional[int]
    reservedAt: Optional[int]
    finishedAt: Optional[int]
    deadlineAt: Optional[int]


class HistoryEntry(TypedDict):
    at: int
    event: str
    state: JobState
    attempt: int
    node: str
    reason: Optional[str]


class PushResult(TypedDict):
    created: bool
    outcome: str
    job: Job


class Reservation(TypedDict):
    job: Job
    token: str
    deadlineAt: int


class FailResult(TypedDict):
    job: Job
    decision: Dict[str, Any]


class _AckRequired(TypedDict):
    id: str
    token: str
    op: Literal["finish", "fail", "release", "touch"]


class Ack(_AckRequired, total=False):
    """One item of ``POST /v1/ack``: ``error``/``retryDelayMs``/``bury`` for fail, ``ttrMs`` for touch."""

    error: Optional[str]
    retryDelayMs: int
    bury: bool
    delayMs: int
    ttrMs: int


class _AckResultRequired(TypedDict):
    id: str
    op: str
    ok: bool


class AckResult(_AckResultRequired, total=False):
    state: JobState
    error: Dict[str, Any]
    job: Job


class TopicStats(TypedDict):
    topic: str
    counts: Dict[str, int]
    nextDueAt: Optional[int]


class JobPage(TypedDict):
    jobs: List[Job]
    next: Optional[str]


__all__ = [
    "Ack",
    "AckResult",
    "Duration",
    "FailResult",
    "HistoryEntry",
    "Job",
    "JobPage",
    "JobState",
    "PushResult",
    "Reservation",
    "RetryPolicy",
    "TopicStats",
]
