"""delayq's gRPC API from Python (Debian's python3-grpcio), with stubs generated from the repository's
.proto by python3-grpc-tools at test time as the package `delayq_grpc` (docs/grpc.md), beside delayq's own
Python client, the package `delayq`. Argv: the stub directory, the client's directory; env: DELAYQ_GRPC
(host:port), DELAYQ_URL (the HTTP API), DELAYQ_PREFIX. Prints one `ok <step>` line per step; any failure
raises (non-zero exit)."""
import os
import queue
import sys
import time

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import grpc  # noqa: E402
import delayq  # noqa: E402  (the HTTP client)
from delayq_grpc.v1 import delayq_pb2 as pb  # noqa: E402
from delayq_grpc.v1 import delayq_pb2_grpc as rpc  # noqa: E402
from health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

channel = grpc.insecure_channel(os.environ["DELAYQ_GRPC"])
stub = rpc.DelayqStub(channel)
p = os.environ.get("DELAYQ_PREFIX", "pyg")


def trailers(err):
    return {k: v for k, v in err.trailing_metadata()}


# health
answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="delayq.v1.Delayq"))
assert answer.status == health_pb2.HealthCheckResponse.SERVING, answer
print("ok health", flush=True)

# push and get
pushed = stub.Push(pb.PushRequest(topic=f"{p}-t", id=f"{p}-1", body_json='{"a":1}', delay_ms=3_600_000))
assert pushed.created and pushed.job.state == "delayed" and pushed.job.body_json == '{"a":1}', pushed
got = stub.Get(pb.GetRequest(id=f"{p}-1", history=True))
assert [h.event for h in got.history] == ["push"], got.history
print("ok push-get", flush=True)

# the stubs and the HTTP client side by side: the job pushed over gRPC, read over HTTP
assert delayq.Client.__module__ == "delayq.client", delayq.Client.__module__
assert delayq.Client(os.environ["DELAYQ_URL"]).get(f"{p}-1")["state"] == "delayed"
print("ok beside-client", flush=True)

# bad messages: INVALID_ARGUMENT naming the field
try:
    stub.PushBatch(pb.PushBatchRequest(jobs=[pb.PushRequest(topic="fine"), pb.PushRequest(topic="fine", ttr_ms=1)]))
    raise AssertionError("bad batch accepted")
except grpc.RpcError as err:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.code()
    meta = trailers(err)
    assert meta["delayq-code"] == "E_VALIDATION" and meta["delayq-field"] == "jobs[1].ttrMs", meta
try:
    stub.Get(pb.GetRequest(id=f"{p}-missing"))
    raise AssertionError("missing job found")
except grpc.RpcError as err:
    assert err.code() == grpc.StatusCode.NOT_FOUND and trailers(err)["delayq-code"] == "E_NOT_FOUND"
print("ok errors", flush=True)


class Stream:
    """A reserve stream fed from a queue; responses read on demand."""

    def __init__(self):
        self.requests = queue.Queue()
        self.call = stub.Reserve(iter(self.requests.get, None))

    def send(self, **fields):
        self.requests.put(pb.ReserveStreamRequest(**fields))

    def next(self):
        return next(self.call)

    def close(self):
        self.requests.put(None)


# reserve stream: credit, reservations, acks on the stream
stub.PushBatch(pb.PushBatchRequest(jobs=[pb.PushRequest(topic=f"{p}-s", id=f"{p}-s{i}") for i in range(3)]))
s = Stream()
s.send(subscribe=pb.Subscribe(topics=[f"{p}-s"]), credit=3)
reservations = []
while len(reservations) < 3:
    reservations.extend(s.next().reservations)
s.send(acks=[pb.Ack(id=r.job.id, token=r.token, op="finish") for r in reservations[:2]]
       + [pb.Ack(id=reservations[2].job.id, token=reservations[2].token, op="fail", error="nope", bury=True)])
results = s.next().ack_results
assert [(r.ok, r.state) for r in results] == [(True, "finished"), (True, "finished"), (True, "dead")], results
s.close()
assert list(s.call) == []  # the server ends the stream once the client closed its side
print("ok stream", flush=True)

# a client that vanishes mid-stream: its reservation is released at once
stub.Push(pb.PushRequest(topic=f"{p}-v", id=f"{p}-v1", ttr_ms=600_000))
v = Stream()
v.send(subscribe=pb.Subscribe(topics=[f"{p}-v"]), credit=1)
held = v.next().reservations[0]
assert stub.Get(pb.GetRequest(id=held.job.id)).job.state == "reserved"
v.call.cancel()
give_up = time.time() + 3
while stub.Get(pb.GetRequest(id=held.job.id)).job.state != "ready":
    assert time.time() < give_up, "not released"
    time.sleep(0.02)
print("ok vanish", flush=True)

# a bad stream message ends the stream with INVALID_ARGUMENT naming the field
b = Stream()
b.send(subscribe=pb.Subscribe(topics=[f"{p}-b"]), acks=[pb.Ack(id=f"{p}-x", token="t", op="done")])
try:
    b.next()
    raise AssertionError("bad ack accepted")
except grpc.RpcError as err:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and trailers(err)["delayq-field"] == "acks[0].op", trailers(err)
b.close()
print("ok stream-errors", flush=True)

# operator calls: list, dead letters, redrive, pause and resume, a topic's stats, purge
page = stub.List(pb.ListRequest(topic=f"{p}-s", limit=2))
assert [j.id for j in page.jobs] == [f"{p}-s0", f"{p}-s1"] and page.HasField("next"), page
rest = stub.List(pb.ListRequest(topic=f"{p}-s", limit=2, cursor=page.next))
assert [j.id for j in rest.jobs] == [f"{p}-s2"] and not rest.HasField("next"), rest
dead = stub.ListDead(pb.ListDeadRequest(topic=f"{p}-s"))
assert [(j.id, j.last_error) for j in dead.jobs] == [(f"{p}-s2", "nope")], dead
assert stub.Redrive(pb.RedriveRequest(ids=[f"{p}-s2"])).count == 1
paused = stub.PauseTopic(pb.PauseTopicRequest(topic=f"{p}-s", delay_ms=60_000))
assert paused.paused and paused.paused_until > 0, paused
stats = stub.GetTopicStats(pb.TopicRequest(topic=f"{p}-s"))
assert stats.paused and stats.counts["ready"] == 1 and stats.counts["finished"] == 2, stats
assert not stub.ResumeTopic(pb.TopicRequest(topic=f"{p}-s")).paused
try:
    stub.Purge(pb.PurgeRequest())
    raise AssertionError("purge without before accepted")
except grpc.RpcError as err:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and trailers(err)["delayq-field"] == "before", trailers(err)
try:
    stub.List(pb.ListRequest(limit=5000))
    raise AssertionError("page of 5000 accepted")
except grpc.RpcError as err:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and trailers(err)["delayq-field"] == "limit", trailers(err)
print("ok operator", flush=True)
print("done", flush=True)
