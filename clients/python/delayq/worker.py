"""The Worker: handlers per topic, run on threads, with the TypeScript Worker's behaviour.

A reserve thread long-polls for as many jobs as there are free slots and hands each to a thread of the
pool; while a handler runs, its reservation is touched at about half its TTR. A handler that returns
finishes its job, one that raises fails it with the error text (retried by the job's backoff, buried when
no attempts remain). Finishes and fails are sent in batches through ``POST /v1/ack`` by an ack thread
(one call per run of acks that piled up while the previous call was under way), or one call each on a
server without that route. ``stop()`` (also on SIGTERM/SIGINT under ``run()``) stops reserving, ends the
pending long-poll (the server releases what it reserved for it), lets running handlers finish and sends
their acks before it returns.
"""
from __future__ import annotations

import signal
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Mapping, Optional

from .client import Client
from .errors import DelayqError, NotFoundError, StoreUnavailableError
from .types import Ack, Job, Reservation


class JobContext:
    """What a handler gets beside the job: its token, its delivery number, and a way to extend it."""

    def __init__(self, worker: "Worker", reservation: Reservation) -> None:
        self.token: str = reservation["token"]
        self.attempt: int = reservation["job"]["attempts"]
        #: Set when the reservation was lost (its TTR lapsed and the job went to another consumer).
        self.lost = threading.Event()
        self._worker = worker
        self._job_id = reservation["job"]["id"]
        self.deadline_at: int = reservation["deadlineAt"]

    def touch(self, ttr_ms: Optional[int] = None) -> None:
        """Extends the reservation now (the worker also does this on its own at about TTR/2)."""
        job = self._worker.client.touch(self._job_id, self.token, ttr_ms if ttr_ms is not None else self._worker.ttr_ms)
        if job.get("deadlineAt") is not None:
            self.deadline_at = int(job["deadlineAt"])  # type: ignore[arg-type]


Handler = Callable[[Job, JobContext], Any]
ErrorCallback = Callable[[BaseException, Optional[Job]], None]


class Worker:
    """Runs ``handlers`` (topic → function(job, context)) for jobs reserved from exactly those topics."""

    def __init__(
        self,
        client: Client,
        handlers: Mapping[str, Handler],
        *,
        concurrency: int = 1,
        wait_ms: int = 5000,
        ttr_ms: Optional[int] = None,
        auto_touch: bool = True,
        ack_batch_max: int = 100,
        error_backoff_ms: int = 500,
        on_error: Optional[ErrorCallback] = None,
    ) -> None:
        if not handlers:
            raise ValueError("handlers: register at least one topic")
        if not 1 <= concurrency <= 100:
            raise ValueError("concurrency: must be from 1 to 100")
        if not 0 <= wait_ms <= 60_000:
            raise ValueError("wait_ms: must be from 0 to 60000")
        if not 1 <= ack_batch_max <= 1000:
            raise ValueError("ack_batch_max: must be from 1 to 1000")
        self.client = client
        self.handlers: Dict[str, Handler] = dict(handlers)
        self.topics: List[str] = list(handlers)
        self.concurrency = concurrency
        self.wait_ms = wait_ms
        self.ttr_ms = ttr_ms
        self.auto_touch = auto_touch
        self.ack_batch_max = ack_batch_max
        self.error_backoff_ms = error_backoff_ms
        self.on_error: ErrorCallback = on_error or (lambda err, job: None)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="delayq-handler")
        self._state = threading.Condition()
        self._running = 0
        self._processed = 0
        self._stopping = False
        self._acks: List[Ack] = []
        self._acks_in_flight = 0
        self._batch_acks: Optional[bool] = None  # unknown until the first ack call
        self._reserver: Optional[threading.Thread] = None
        self._acker: Optional[threading.Thread] = None
        self._stopped = threading.Event()

    @property
    def processed(self) -> int:
        """Jobs handled so far (finished or failed)."""
        return self._processed

    @property
    def batch_acks(self) -> Optional[bool]:
        """True once acks went through ``POST /v1/ack``, False on a server without it, None before any ack."""
        return self._batch_acks

    @property
    def running(self) -> int:
        return self._running

    def start(self) -> "Worker":
        if self._reserver is None:
            self._reserver = threading.Thread(target=self._reserve_loop, name="delayq-reserve", daemon=True)
            self._acker = threading.Thread(target=self._ack_loop, name="delayq-ack", daemon=True)
            self._reserver.start()
            self._acker.start()
        return self

    def run(self) -> None:
        """start(), stop gracefully on SIGTERM or SIGINT, return once stopped (call from the main thread)."""
        self.start()
        previous = {sig: signal.signal(sig, lambda *_: threading.Thread(target=self.stop, daemon=True).start())
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not self._stopped.wait(0.2):
                pass
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def stop(self, timeout: Optional[float] = None) -> None:
        """Stops reserving, waits for running handlers and sends their acks. Safe to call more than once."""
        with self._state:
            self._stopping = True
            self._state.notify_all()
        self.client.interrupt_long_polls()
        if self._reserver is not None:
            self._reserver.join(timeout)
        self._pool.shutdown(wait=True)
        with self._state:
            self._state.notify_all()
        if self._acker is not None:
            self._acker.join(timeout)
        self._stopped.set()

    # --- reserving ---------------------------------------------------------------------------------------

    def _reserve_loop(self) -> None:
        failures = 0
        while True:
            with self._state:
                while not self._stopping and self._running >= self.concurrency:
                    self._state.wait()
                if self._stopping:
                    return
                free = self.concurrency - self._running
            try:
                reservations = self.client.reserve(self.topics, count=free, wait_ms=self.wait_ms, ttr_ms=self.ttr_ms)
                failures = 0
            except DelayqError as err:
                if self._stopping:
                    return
                self.on_error(err, None)
                failures += 1
                pause = min(30.0, self.error_backoff_ms / 1000 * 2 ** min(failures - 1, 10))
                with self._state:
                    self._state.wait_for(lambda: self._stopping, pause)
                continue
            for reservation in reservations:
                if self._stopping:  # reserved as we stopped: give it back at once
                    self._release(reservation)
                    continue
                with self._state:
                    self._running += 1
                self._pool.submit(self._handle, reservation)

    def _release(self, reservation: Reservation) -> None:
        try:
            self.client.release(reservation["job"]["id"], reservation["token"])
        except DelayqError as err:
            self.on_error(err, reservation["job"])

    # --- handling ----------------------------------------------------------------------------------------

    def _handle(self, reservation: Reservation) -> None:
        job = reservation["job"]
        context = JobContext(self, reservation)
        touching = threading.Event()
        toucher = threading.Thread(target=self._touch_loop, args=(context, job, touching), daemon=True) if self.auto_touch else None
        if toucher:
            toucher.start()
        ack: Optional[Ack] = None
        try:
            handler = self.handlers.get(job["topic"])
            if handler is None:
                raise LookupError(f"no handler for topic {job['topic']}")
            handler(job, context)
            ack = {"id": job["id"], "token": context.token, "op": "finish"}
        except Exception as err:  # the handler's failure is the job's failure
            ack = {"id": job["id"], "token": context.token, "op": "fail", "error": f"{type(err).__name__}: {err}"[:2000]}
        finally:
            touching.set()
            if toucher:
                toucher.join()
            with self._state:
                self._processed += 1
                if ack is not None and not context.lost.is_set():
                    self._acks.append(ack)
                self._running -= 1
                self._state.notify_all()

    def _touch_loop(self, context: JobContext, job: Job, done: threading.Event) -> None:
        """Touches at about half of what is left of the reservation until the handler is done."""
        while True:
            left_ms = context.deadline_at - time.time() * 1000
            if done.wait(max(0.05, left_ms / 2000)):
                return
            try:
                context.touch()
            except StoreUnavailableError as err:
                self.on_error(err, job)
            except DelayqError as err:  # stale token or wrong state: the job is not ours any more
                self.on_error(err, job)
                context.lost.set()
                return

    # --- acknowledging -----------------------------------------------------------------------------------

    def _ack_loop(self) -> None:
        while True:
            with self._state:
                while not self._acks and not (self._stopping and self._reserver_done() and self._running == 0):
                    self._state.wait(0.5)
                if not self._acks:
                    return
                batch, self._acks = self._acks[: self.ack_batch_max], self._acks[self.ack_batch_max :]
            self._send_acks(batch)

    def _reserver_done(self) -> bool:
        return self._reserver is None or not self._reserver.is_alive()

    def _send_acks(self, batch: List[Ack]) -> None:
        if self._batch_acks is not False:
            try:
                results = self.client.ack(batch)
                self._batch_acks = True
                for ack, result in zip(batch, results):
                    if not result.get("ok"):
                        error = result.get("error") or {}
                        self.on_error(DelayqError(str(error.get("message")), code=str(error.get("code"))), None)
                return
            except NotFoundError as err:
                if self._batch_acks is True or err.field is not None:
                    self.on_error(err, None)
                    return
                self._batch_acks = False  # a server without POST /v1/ack: one call per ack from now on
            except DelayqError as err:
                self.on_error(err, None)
                return
        for ack in batch:
            try:
                if ack["op"] == "finish":
                    self.client.finish(ack["id"], ack["token"])
                else:
                    self.client.fail(ack["id"], ack["token"], ack.get("error"))
            except DelayqError as err:
                self.on_error(err, None)


def print_errors(err: BaseException, job: Optional[Job]) -> None:
    """An ``on_error`` that prints what went wrong (the default ignores errors, as the TS Worker does)."""
    where = f" (job {job['id']})" if job else ""
    print(f"delayq worker error{where}: {err}")
    if not isinstance(err, DelayqError):
        traceback.print_exception(type(err), err, err.__traceback__)
