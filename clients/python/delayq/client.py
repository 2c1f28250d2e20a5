"""A client for every operation of delayq's HTTP API, over the standard library's http.client.

One keep-alive connection per thread, so a Client may be shared by threads (the Worker does). Error answers
raise the catalogue's exceptions (errors.py); a server that cannot be reached raises StoreUnavailableError.
"""
from __future__ import annotations

import http.client
import json
import socket
import threading
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set
from urllib.parse import quote, urlencode, urlsplit

from .errors import DelayqError, StoreUnavailableError, error_from_body
from .types import Ack, AckResult, Duration, FailResult, HistoryEntry, Job, JobPage, PushResult, Reservation, TopicStats

DEFAULT_URL = "http://127.0.0.1:7750"


def _id(value: str) -> str:
    return quote(value, safe="")


def _drop_none(values: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class Client:
    """delayq over HTTP. ``url`` is the server (default http://127.0.0.1:7750); ``token`` the bearer token."""

    def __init__(self, url: str = DEFAULT_URL, token: Optional[str] = None, timeout: float = 30.0) -> None:
        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url must be http(s)://host[:port], not {url!r}")
        self.url = url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._base = parts.path
        self._token = token
        self._timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._long_polls: Set[http.client.HTTPConnection] = set()

    # --- producers and operators -------------------------------------------------------------------------

    def push(
        self,
        topic: str,
        body: Any = None,
        *,
        id: Optional[str] = None,
        delay_ms: Optional[Duration] = None,
        run_at: Optional[Any] = None,
        priority: Optional[int] = None,
        ttr_ms: Optional[Duration] = None,
        ttl_ms: Optional[Duration] = None,
        retry: Optional[Any] = None,
        tag: Optional[str] = None,
        biz_key: Optional[str] = None,
        on_exists: Optional[str] = None,
        max_wait_ms: Optional[Duration] = None,
        spread_ms: Optional[int] = None,
        dedup_key: Optional[str] = None,
        dedup_window_ms: Optional[Duration] = None,
        group: Optional[str] = None,
    ) -> PushResult:
        """Pushes one job; ``created`` is False when a job with that id existed (idempotent push).

        ``on_exists`` ("keep", "replace" or "extend", capped by ``max_wait_ms``) says what to do with a waiting
        job of the topic holding the id. ``dedup_key`` with ``dedup_window_ms`` (required together): within that
        window from the topic's first push with the key, a push with it answers that job and makes none.
        ``group`` (a tenant, a merchant) is the job's group, bounded by its topic's ``groupConcurrency``.
        ``outcome`` says what the push did (created, kept, replaced, extended, duplicate).
        """
        job = self.job_spec(topic, body, id=id, delay_ms=delay_ms, run_at=run_at, priority=priority, ttr_ms=ttr_ms,
                            ttl_ms=ttl_ms, retry=retry, tag=tag, biz_key=biz_key, on_exists=on_exists,
                            max_wait_ms=max_wait_ms, spread_ms=spread_ms, dedup_key=dedup_key,
                            dedup_window_ms=dedup_window_ms, group=group)
        return self._request("POST", "/v1/jobs", job)

    @staticmethod
    def job_spec(topic: str, body: Any = None, **fields: Any) -> Dict[str, Any]:
        """A push request body for push_batch: ``job_spec("sms", {...}, delay_ms="30s", id="x")``."""
        names = {"delay_ms": "delayMs", "run_at": "runAt", "ttr_ms": "ttrMs", "ttl_ms": "ttlMs", "biz_key": "bizKey",
                 "on_exists": "onExists", "max_wait_ms": "maxWaitMs", "spread_ms": "spreadMs",
                 "dedup_key": "dedupKey", "dedup_window_ms": "dedupWindowMs"}
        spec: Dict[str, Any] = {"topic": topic}
        if body is not None:
            spec["body"] = body
        for key, value in fields.items():
            if value is not None:
                spec[names.get(key, key)] = value
        return spec

    def push_batch(self, jobs: Sequence[Mapping[str, Any]]) -> List[PushResult]:
        """Pushes up to 1000 jobs (see job_spec); all are validated before any is stored."""
        return self._request("POST", "/v1/jobs/batch", {"jobs": list(jobs)})["results"]

    def get(self, id: str) -> Job:
        return self._request("GET", f"/v1/jobs/{_id(id)}")["job"]

    def get_with_history(self, id: str) -> Dict[str, Any]:
        """``{"job": Job, "history": [HistoryEntry]}``."""
        return self._request("GET", f"/v1/jobs/{_id(id)}?history=true")

    def history(self, id: str) -> List[HistoryEntry]:
        return self._request("GET", f"/v1/jobs/{_id(id)}/history")["history"]

    def cancel(self, id: str, reason: Optional[str] = None) -> Job:
        return self._request("POST", f"/v1/jobs/{_id(id)}/cancel", _drop_none({"reason": reason}))["job"]

    def reschedule(self, id: str, *, delay_ms: Optional[Duration] = None, run_at: Optional[Any] = None) -> Job:
        body = _drop_none({"delayMs": delay_ms, "runAt": run_at})
        return self._request("POST", f"/v1/jobs/{_id(id)}/reschedule", body)["job"]

    def topic_settings(self, topic: str) -> Dict[str, Any]:
        """A topic's flow-control settings: ``{"topic", "rateLimit"?: {"perSecond", "burst"}, "groupConcurrency"?,
        "groupRateLimit"?: {"perSecond", "burst"}}``."""
        return self._request("GET", f"/v1/topics/{_id(topic)}/settings")

    def put_topic_settings(
        self,
        topic: str,
        *,
        rate_limit: Optional[Mapping[str, Any]] = None,
        group_concurrency: Optional[int] = None,
        group_rate_limit: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Replaces a topic's settings (``rate_limit={"perSecond": 50, "burst": 10}``, ``group_concurrency=2``: at
        most 2 jobs of one group reserved at once, ``group_rate_limit={"perSecond": 1}``: each group's jobs handed
        out at most once a second); a setting left None is cleared."""
        settings = _drop_none(
            {"rateLimit": rate_limit, "groupConcurrency": group_concurrency, "groupRateLimit": group_rate_limit}
        )
        return self._request("PUT", f"/v1/topics/{_id(topic)}/settings", settings)

    def pause_group(self, topic: str, group: str, *, delay_ms: Optional[Duration] = None) -> Dict[str, Any]:
        """Pauses one group of a topic (its jobs stay ready, the topic's others go) until resumed, or for
        ``delay_ms`` (ms or "15m"): ``{"topic", "group", "paused", "pausedUntil"}``."""
        path = f"/v1/topics/{_id(topic)}/groups/{_id(group)}/pause"
        return self._request("POST", path, _drop_none({"delayMs": delay_ms}))

    def resume_group(self, topic: str, group: str) -> Dict[str, Any]:
        return self._request("POST", f"/v1/topics/{_id(topic)}/groups/{_id(group)}/resume")

    def paused_groups(self, topic: str) -> List[Dict[str, Any]]:
        """A topic's paused groups, by name: ``[{"group", "pausedUntil"}]`` (``pausedUntil`` None: until resumed)."""
        return self._request("GET", f"/v1/topics/{_id(topic)}/groups/paused")["groups"]

    def run_now(self, id: str) -> Job:
        """Makes a delayed job (waiting for its due time or a retry) ready at once; other states raise WrongStateError."""
        return self._request("POST", f"/v1/jobs/{_id(id)}/run-now", {})["job"]

    def list(
        self,
        *,
        topic: Optional[str] = None,
        state: Optional[str] = None,
        biz_key: Optional[str] = None,
        tag: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> JobPage:
        query = _drop_none({"topic": topic, "state": state, "bizKey": biz_key, "tag": tag, "limit": limit, "cursor": cursor})
        return self._request("GET", "/v1/jobs" + (f"?{urlencode(query)}" if query else ""))

    def purge(self, before: int, limit: Optional[int] = None) -> int:
        return self._request("POST", "/v1/purge", _drop_none({"before": before, "limit": limit}))["count"]

    # --- consumers ---------------------------------------------------------------------------------------

    def reserve(
        self, topics: Iterable[str], *, count: int = 1, wait_ms: int = 0, ttr_ms: Optional[int] = None
    ) -> List[Reservation]:
        """Reserves up to ``count`` ready jobs; with ``wait_ms``, waits (long-poll) until one is ready.
        ``interrupt_long_polls()`` from another thread ends the wait; the server releases what it reserved."""
        body = _drop_none({"topics": list(topics), "count": count, "waitMs": wait_ms, "ttrMs": ttr_ms})
        return self._request("POST", "/v1/reserve", body, timeout=self._timeout + wait_ms / 1000, long_poll=True)["reservations"]

    def touch(self, id: str, token: str, ttr_ms: Optional[int] = None) -> Job:
        return self._request("POST", f"/v1/jobs/{_id(id)}/touch", _drop_none({"token": token, "ttrMs": ttr_ms}))["job"]

    def finish(self, id: str, token: str) -> Job:
        return self._request("POST", f"/v1/jobs/{_id(id)}/finish", {"token": token})["job"]

    def fail(
        self, id: str, token: str, error: Optional[str] = None, *, retry_delay_ms: Optional[int] = None, bury: Optional[bool] = None
    ) -> FailResult:
        """Fails a reservation: retried after the job's backoff (or ``retry_delay_ms``), or buried when no
        attempts remain (or ``bury=True``)."""
        body = _drop_none({"token": token, "error": error, "retryDelayMs": retry_delay_ms, "bury": bury})
        return self._request("POST", f"/v1/jobs/{_id(id)}/fail", body)

    def release(self, id: str, token: str, *, delay_ms: Optional[int] = None) -> Job:
        """Gives a reservation back (the attempt does not count); ``delay_ms`` where the server supports it."""
        return self._request("POST", f"/v1/jobs/{_id(id)}/release", _drop_none({"token": token, "delayMs": delay_ms}))["job"]

    def ack(self, acks: Sequence[Ack], *, jobs: bool = False) -> List[AckResult]:
        """Settles up to 1000 reservations in one call (``POST /v1/ack``); one result per ack, in order. A
        refused ack (stale token…) has ``ok: False`` and its ``error``; the others are settled all the same."""
        body: Dict[str, Any] = {"acks": list(acks)}
        if jobs:
            body["jobs"] = True
        return self._request("POST", "/v1/ack", body)["results"]

    # --- dead letters, stats, journal, sinks, health -------------------------------------------------------

    def list_dead(self, topic: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JobPage:
        return self._request("GET", "/v1/dead?" + urlencode(_drop_none({"topic": topic, "limit": limit, "cursor": cursor})))

    def redrive(self, *, topic: Optional[str] = None, limit: Optional[int] = None, ids: Optional[Sequence[str]] = None) -> int:
        """Dead → ready: the oldest ``limit`` dead jobs of ``topic``, or the given ``ids``. Returns how many moved."""
        body: Dict[str, Any] = {"ids": list(ids)} if ids is not None else _drop_none({"topic": topic, "limit": limit})
        return self._request("POST", "/v1/dead/redrive", body)["count"]

    def stats(self) -> List[TopicStats]:
        return self._request("GET", "/v1/stats")["topics"]

    def topic_stats(self, topic: str) -> TopicStats:
        return self._request("GET", f"/v1/topics/{_id(topic)}/stats")

    def restore(self, *, expire: bool = True) -> Dict[str, Any]:
        """With the SQL journal: restore every unfinished job after a store loss (idempotent)."""
        return self._request("POST", "/v1/restore", {"expire": expire})

    def restore_job(self, id: str, *, expire: bool = True) -> Dict[str, Any]:
        return self._request("POST", f"/v1/jobs/{_id(id)}/restore", {"expire": expire})

    def clear_all(self, reason: Optional[str] = None) -> Dict[str, Any]:
        """With the SQL journal: cancels every unfinished job."""
        return self._request("POST", "/v1/clear-all", _drop_none({"confirm": "clear-all", "reason": reason}))

    def journal_status(self) -> Dict[str, Any]:
        return self._request("GET", "/v1/journal")

    def sinks(self) -> Dict[str, Any]:
        """Every delivery binding, under `bindings` (docs/sinks.md; `routes`, the same list, is deprecated)."""
        return self._request("GET", "/v1/sinks")

    def get_sink(self, topic: str) -> Dict[str, Any]:
        return self._request("GET", f"/v1/topics/{_id(topic)}/sink")

    def set_sink(self, topic: str, sink: Mapping[str, Any]) -> Dict[str, Any]:
        return self._request("PUT", f"/v1/topics/{_id(topic)}/sink", dict(sink))

    def delete_sink(self, topic: str) -> Dict[str, Any]:
        return self._request("DELETE", f"/v1/topics/{_id(topic)}/sink")

    def health(self) -> Dict[str, Any]:
        return self._request("GET", "/health")

    def ready(self) -> Dict[str, Any]:
        """Readiness; raises StoreUnavailableError (503) while starting, closing or when the store fails."""
        return self._request("GET", "/ready")

    def metrics(self) -> str:
        """The Prometheus text exposition."""
        return self._request("GET", "/metrics", raw=True)

    # --- transport ---------------------------------------------------------------------------------------

    def interrupt_long_polls(self) -> None:
        """Ends every reserve call waiting right now (from any thread); the server releases their jobs."""
        with self._lock:
            pending = list(self._long_polls)
        for conn in pending:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self._timeout)
            self._local.conn = conn
        return conn

    def _request(
        self, method: str, path: str, body: Any = None, *, timeout: Optional[float] = None, long_poll: bool = False, raw: bool = False
    ) -> Any:
        headers = {"accept": "application/json"}
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        for attempt in (1, 2):
            conn = self._connection()
            reused = conn.sock is not None
            conn.timeout = timeout or self._timeout
            if conn.sock is not None:
                conn.sock.settimeout(conn.timeout)
            if long_poll:
                with self._lock:
                    self._long_polls.add(conn)
            try:
                conn.request(method, self._base + path, body=data, headers=headers)
                response = conn.getresponse()
                text = response.read().decode("utf-8", "replace")
                status = response.status
                if response.getheader("connection", "").lower() == "close":
                    conn.close()
                break
            except (OSError, http.client.HTTPException) as err:
                conn.close()
                self._local.conn = None
                # A kept-alive connection the server closed meanwhile: one fresh try (never for a long-poll,
                # which may have reserved jobs before it was cut; the server releases those).
                if attempt == 1 and reused and not long_poll and isinstance(err, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
                    continue
                raise StoreUnavailableError(f"cannot reach delayq at {self.url}: {err}") from err
            finally:
                if long_poll:
                    with self._lock:
                        self._long_polls.discard(conn)
        if raw and 200 <= status < 300:
            return text
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        if 200 <= status < 300:
            return parsed
        raise error_from_body(status, parsed, text)


__all__ = ["Client", "DEFAULT_URL", "DelayqError"]
