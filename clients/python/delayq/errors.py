"""The error catalogue of delayq (docs/errors.md) as exceptions.

Every error answer of the server, ``{"error": {"code", "message", "field"?, "details"?}}``, is raised as the
subclass of :class:`DelayqError` for its code, so callers catch ``TokenMismatchError`` or branch on
``err.code`` exactly as the TypeScript SDK does.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type


class DelayqError(Exception):
    """A failure with a stable catalogue ``code``; ``field`` names the request field at fault."""

    code: str = "E_INTERNAL"

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        field: Optional[str] = None,
        details: Optional[Mapping[str, Any]] = None,
        status: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.field = field
        self.details: Dict[str, Any] = dict(details or {})
        self.status = status

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ValidationError(DelayqError):
    """400: a field is missing, malformed or out of range (``field`` names it)."""

    code = "E_VALIDATION"


class BodyTooLargeError(DelayqError):
    """413: the request or the job body is over the size limit."""

    code = "E_BODY_TOO_LARGE"


class NotFoundError(DelayqError):
    """404: no job with that id (or it was purged), or no such route."""

    code = "E_NOT_FOUND"


class WrongStateError(DelayqError):
    """409: the job's state forbids the operation (``details["state"]`` says where it is)."""

    code = "E_WRONG_STATE"


class TokenMismatchError(DelayqError):
    """409: the reservation token is stale; the job was delivered again. Drop the job."""

    code = "E_TOKEN_MISMATCH"


class ConflictError(DelayqError):
    """409: the request conflicts with existing data."""

    code = "E_CONFLICT"


class UnauthorizedError(DelayqError):
    """401: no bearer token, or an unknown one."""

    code = "E_UNAUTHORIZED"


class ForbiddenError(DelayqError):
    """403: the token may not act on this topic (or on all topics)."""

    code = "E_FORBIDDEN"


class RateLimitedError(DelayqError):
    """429: too many requests for this token; retry after ``details["retryAfterMs"]``."""

    code = "E_RATE_LIMITED"


class StoreUnavailableError(DelayqError):
    """503: the store (or the server itself) cannot be reached; nothing was changed. Retry with backoff."""

    code = "E_STORE_UNAVAILABLE"


class ShuttingDownError(DelayqError):
    """503: the service is closing and takes no new work."""

    code = "E_SHUTTING_DOWN"


class SinkFailedError(DelayqError):
    """502: a push delivery target refused or timed out."""

    code = "E_SINK_FAILED"


class ConfigError(DelayqError):
    """500: the server's configuration is invalid."""

    code = "E_CONFIG"


class InternalError(DelayqError):
    """500: a bug on the server, or an answer that is not delayq's."""

    code = "E_INTERNAL"


ERRORS_BY_CODE: Dict[str, Type[DelayqError]] = {
    cls.code: cls
    for cls in (
        ValidationError,
        BodyTooLargeError,
        NotFoundError,
        WrongStateError,
        TokenMismatchError,
        ConflictError,
        UnauthorizedError,
        ForbiddenError,
        RateLimitedError,
        StoreUnavailableError,
        ShuttingDownError,
        SinkFailedError,
        ConfigError,
        InternalError,
    )
}


def error_from_body(status: int, parsed: Any, text: str) -> DelayqError:
    """An error answer → the exception of its code (InternalError for an answer that is not delayq's)."""
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str) and error["code"] in ERRORS_BY_CODE:
        cls = ERRORS_BY_CODE[error["code"]]
        field = error.get("field")
        details = error.get("details")
        return cls(
            str(error.get("message", error["code"])),
            field=field if isinstance(field, str) else None,
            details=details if isinstance(details, dict) else None,
            status=status,
        )
    cls = StoreUnavailableError if status == 503 else InternalError
    return cls(f"HTTP {status}: {text[:200]}", details={"status": status}, status=status)
