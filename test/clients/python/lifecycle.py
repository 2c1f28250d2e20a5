"""The full consumer lifecycle through the Python client against a real delayq (DELAYQ_URL, topic prefix
DELAYQ_PREFIX). Prints one `ok <step>` line per step; any failure raises (non-zero exit)."""
import os
import threading
import time

from delayq import Client, TokenMismatchError, ValidationError, Worker, WrongStateError

client = Client(os.environ["DELAYQ_URL"])
p = os.environ.get("DELAYQ_PREFIX", "py")
errors = []


def wait_for(probe, timeout=15.0):
    give_up = time.time() + timeout
    while not probe():
        if time.time() > give_up:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


# validation errors name the field
try:
    client.push("not a topic")
    raise AssertionError("push of a bad topic succeeded")
except ValidationError as err:
    assert err.field == "topic" and err.status == 400, (err.field, err.status)
print("ok validation", flush=True)

# cancel while delayed; a second cancel is refused with the job's state
client.push(f"{p}-later", {"n": 1}, id=f"{p}-c1", delay_ms="1h")
assert client.cancel(f"{p}-c1", "paid")["state"] == "cancelled"
try:
    client.cancel(f"{p}-c1")
    raise AssertionError("second cancel succeeded")
except WrongStateError as err:
    assert err.details.get("state") == "cancelled", err.details
print("ok cancel", flush=True)

# run now: a delayed job becomes ready at once; a ready one is refused with its state
debounced = client.push(f"{p}-deb", {"n": 1}, id=f"{p}-d1", delay_ms="1h", on_exists="extend", max_wait_ms="2h")
assert debounced["outcome"] == "created", debounced
debounced = client.push(f"{p}-deb", {"n": 2}, id=f"{p}-d1", delay_ms="90m", on_exists="extend", max_wait_ms="2h")
assert debounced["outcome"] == "extended" and debounced["job"]["body"] == {"n": 1}, debounced
first = client.push(f"{p}-dd", {"n": 1}, dedup_key="charge-1", dedup_window_ms="10m")
again = client.push(f"{p}-dd", {"n": 2}, id=f"{p}-dd2", dedup_key="charge-1", dedup_window_ms="10m")
assert again["outcome"] == "duplicate" and again["job"]["id"] == first["job"]["id"], again
client.push(f"{p}-soon", {"n": 1}, id=f"{p}-rn1", delay_ms="1h")
assert client.run_now(f"{p}-rn1")["state"] == "ready"
try:
    client.run_now(f"{p}-rn1")
    raise AssertionError("second run now succeeded")
except WrongStateError as err:
    assert err.details.get("state") == "ready", err.details
print("ok run now", flush=True)

# spreading: the due time moves by an offset of the id, within the window; a bad window names spread_ms' field
due = int(time.time() * 1000) + 3_600_000
spread = client.push(f"{p}-spread", {"n": 1}, id=f"{p}-sp1", run_at=due, spread_ms=60000)["job"]
assert due <= spread["runAt"] < due + 60000, spread["runAt"]
assert client.push(f"{p}-spread", {"n": 1}, id=f"{p}-sp1", run_at=due, spread_ms=60000)["job"]["runAt"] == spread["runAt"]
try:
    client.push(f"{p}-spread", {"n": 1}, spread_ms=-1)
    raise AssertionError("a negative spread_ms was taken")
except ValidationError as err:
    assert err.field == "spreadMs", err.field
print("ok spread", flush=True)

# topic settings: a rate limit set, read back, refused naming its field, cleared
settings = client.put_topic_settings(f"{p}-rated", rate_limit={"perSecond": 2.5, "burst": 4})
assert settings == {"topic": f"{p}-rated", "rateLimit": {"perSecond": 2.5, "burst": 4}}, settings
assert client.topic_settings(f"{p}-rated") == settings
try:
    client.put_topic_settings(f"{p}-rated", rate_limit={"perSecond": 0})
    raise AssertionError("a rate of 0 was accepted")
except ValidationError as err:
    assert err.field == "rateLimit.perSecond", err.field
assert client.put_topic_settings(f"{p}-rated") == {"topic": f"{p}-rated"}
print("ok settings", flush=True)

# groups: on a store that keeps them (DELAYQ_GROUPS=1) one job of a group out at a time; elsewhere refused by name
if os.environ.get("DELAYQ_GROUPS") == "1":
    settings = client.put_topic_settings(f"{p}-grp", group_concurrency=1)
    assert settings == {"topic": f"{p}-grp", "groupConcurrency": 1}, settings
    client.push_batch([client.job_spec(f"{p}-grp", {"n": i}, group="t1") for i in range(2)])
    assert client.push(f"{p}-grp", {"n": 9}, group="t2")["job"]["group"] == "t2"
    got = client.reserve([f"{p}-grp"], count=3, wait_ms=0)
    assert sorted(r["job"]["group"] for r in got) == ["t1", "t2"], got
    try:
        client.put_topic_settings(f"{p}-grp", group_concurrency=0)
        raise AssertionError("a groupConcurrency of 0 was accepted")
    except ValidationError as err:
        assert err.field == "groupConcurrency", err.field
    # each group's own rate: one token per group, so one job of each of two groups, and a bad rate named
    rated = client.put_topic_settings(f"{p}-gr", group_rate_limit={"perSecond": 0.001})
    assert rated == {"topic": f"{p}-gr", "groupRateLimit": {"perSecond": 0.001, "burst": 1}}, rated
    client.push_batch([client.job_spec(f"{p}-gr", {"n": i}, group=g) for i, g in enumerate(["r1", "r1", "r2"])])
    got = client.reserve([f"{p}-gr"], count=3, wait_ms=0)
    assert sorted(r["job"]["group"] for r in got) == ["r1", "r2"], got
    try:
        client.put_topic_settings(f"{p}-gr", group_rate_limit={"perSecond": 0})
        raise AssertionError("a group rate of 0 was accepted")
    except ValidationError as err:
        assert err.field == "groupRateLimit.perSecond", err.field
    # one group paused: its job stays ready while another group's goes; resumed, it goes
    client.push_batch([client.job_spec(f"{p}-gp", {"n": i}, group=g) for i, g in enumerate(["held", "free"])])
    paused = client.pause_group(f"{p}-gp", "held")
    assert paused == {"topic": f"{p}-gp", "group": "held", "paused": True, "pausedUntil": None}, paused
    assert client.paused_groups(f"{p}-gp") == [{"group": "held", "pausedUntil": None}]
    assert [r["job"]["group"] for r in client.reserve([f"{p}-gp"], count=5, wait_ms=0)] == ["free"]
    assert client.resume_group(f"{p}-gp", "held")["paused"] is False
    assert [r["job"]["group"] for r in client.reserve([f"{p}-gp"], count=5, wait_ms=0)] == ["held"]
    try:
        client.pause_group(f"{p}-gp", "held", delay_ms="soon")
        raise AssertionError("a bad delay_ms was taken")
    except ValidationError as err:
        assert err.field == "delayMs", err.field
else:
    try:
        client.push(f"{p}-grp", {"n": 1}, group="t1")
        raise AssertionError("a group was taken by a store without groups")
    except ValidationError as err:
        assert err.field == "group", err.field
print("ok groups", flush=True)

# reserve by hand: a stale token is refused
client.push(f"{p}-manual", {"n": 2}, id=f"{p}-m1")
[reservation] = client.reserve([f"{p}-manual"], wait_ms=2000)
try:
    client.finish(f"{p}-m1", "not-the-token")
    raise AssertionError("finish with a stale token succeeded")
except TokenMismatchError:
    pass
assert client.finish(f"{p}-m1", reservation["token"])["state"] == "finished"
print("ok manual", flush=True)

# the worker: a handler longer than the TTR is kept alive by auto-touch; a failing one retries, then dies
calls = {"long": 0, "fail": 0}
deadlines = []


def long_handler(job, context):
    calls["long"] += 1
    first = context.deadline_at
    time.sleep(5.0)  # 2.5 TTRs
    deadlines.append((first, context.deadline_at))


def failing_handler(job, context):
    calls["fail"] += 1
    raise RuntimeError(f"boom {context.attempt}")


worker = Worker(
    client,
    {f"{p}-long": long_handler, f"{p}-fail": failing_handler},
    concurrency=4,
    wait_ms=1000,
    ttr_ms=2000,
    on_error=lambda err, job: errors.append(err),
)
client.push(f"{p}-long", {"n": 3}, id=f"{p}-l1")
client.push(f"{p}-fail", {"n": 4}, id=f"{p}-f1", retry={"maxAttempts": 2, "backoff": "100ms"})
worker.start()
wait_for(lambda: client.get(f"{p}-l1")["state"] == "finished")
long_job = client.get(f"{p}-l1")
assert calls["long"] == 1 and long_job["attempts"] == 1, (calls, long_job["attempts"])
assert deadlines[0][1] > deadlines[0][0], deadlines
print("ok auto-touch", flush=True)

wait_for(lambda: client.get(f"{p}-f1")["state"] == "dead")
dead = client.get(f"{p}-f1")
assert dead["attempts"] == 2 and calls["fail"] == 2, (dead["attempts"], calls)
assert dead["lastError"] == "RuntimeError: boom 2", dead["lastError"]
events = [h["event"] for h in client.history(f"{p}-f1")]
assert events.count("retry") == 1 and events[-1] == "bury", events
print("ok fail-retry-dead", flush=True)

# a burst finished through the worker's acks
ids = [r["job"]["id"] for r in client.push_batch([Client.job_spec(f"{p}-long", {"n": i}) for i in range(20)])]
worker.handlers[f"{p}-long"] = lambda job, context: None
wait_for(lambda: all(client.get(i)["state"] == "finished" for i in ids))
worker.stop()
print(f"ok acks batch={str(worker.batch_acks).lower()}", flush=True)
assert not [e for e in errors if not isinstance(e, TokenMismatchError)], errors

# the batch-ack call itself, where the server has it
if worker.batch_acks:
    client.push_batch([Client.job_spec(f"{p}-acks", i, id=f"{p}-a{i}") for i in range(3)])
    got = client.reserve([f"{p}-acks"], count=3, wait_ms=2000)
    results = client.ack([
        {"id": got[0]["job"]["id"], "token": got[0]["token"], "op": "finish"},
        {"id": got[1]["job"]["id"], "token": "stale", "op": "finish"},
        {"id": got[2]["job"]["id"], "token": got[2]["token"], "op": "fail", "bury": True},
    ])
    assert [r["ok"] for r in results] == [True, False, True], results
    assert results[1]["error"]["code"] == "E_TOKEN_MISMATCH" and results[2]["state"] == "dead", results
    print("ok ack-call", flush=True)
print("done", flush=True)
