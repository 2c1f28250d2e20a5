#!/usr/bin/env python3
# Single pushes from Python with nothing but its standard library, as a Python service without delayq's client
# would send them: THREADS threads, each with one kept-alive http.client connection, one POST /v1/jobs per job,
# until COUNT jobs are acknowledged. The clock starts once every thread is connected. Prints one JSON line:
# {"seconds": time of the pushes, "cpuMs": this process's CPU during them, "errors": [first failures]}.
# Usage: python3 bench/clients/python-push.py PORT COUNT THREADS JOB_JSON
import http.client
import itertools
import json
import resource
import sys
import threading
import time

port, count, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
payload = sys.argv[4].encode()
headers = {"content-type": "application/json", "accept": "application/json"}
taken = itertools.count()  # next() on it is atomic under the GIL: each index is pushed once
errors = []
start = threading.Barrier(threads + 1)


def pusher():
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.connect()
    start.wait()
    try:
        while next(taken) < count and not errors:
            conn.request("POST", "/v1/jobs", payload, headers)
            res = conn.getresponse()
            body = res.read()
            if res.status not in (200, 201):
                errors.append(f"HTTP {res.status} {body[:200]!r}")
    except Exception as err:  # a refused or reset connection ends this thread with its reason
        errors.append(repr(err))
    finally:
        conn.close()


def cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


workers = [threading.Thread(target=pusher) for _ in range(threads)]
for w in workers:
    w.start()
start.wait()
started, cpu0 = time.perf_counter(), cpu_ms()
for w in workers:
    w.join()
print(json.dumps({"seconds": time.perf_counter() - started, "cpuMs": cpu_ms() - cpu0, "errors": errors[:3]}))
