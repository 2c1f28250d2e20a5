<?php

declare(strict_types=1);

namespace Delayq;

require_once __DIR__ . '/DelayqException.php';

/**
 * A small client of delayq's HTTP API over curl: push, reserve, finish/fail (one or a batch), touch,
 * release, cancel, run now, get. Answers are the API's JSON as arrays; error answers throw DelayqException with the
 * catalogue code. One curl handle is reused, so calls share a keep-alive connection.
 */
final class DelayqClient
{
    private \CurlHandle $curl;
    private ?bool $batchAcks = null;

    public function __construct(
        private readonly string $url = 'http://127.0.0.1:7750',
        private readonly ?string $token = null,
        private readonly int $timeoutMs = 30000,
    ) {
        $this->curl = curl_init();
    }

    /**
     * Pushes one job. `$options`: id, delayMs (ms or "30s"), runAt, priority, ttrMs, ttlMs, retry, tag, bizKey,
     * onExists ("keep", "replace" or "extend") and maxWaitMs, dedupKey with dedupWindowMs (required together: within
     * that window from the topic's first push with the key, a push with it answers that job and makes none), spreadMs
     * and group (a tenant, a merchant: bounded by its topic's groupConcurrency); `outcome` says created, kept,
     * replaced, extended or duplicate.
     * @param array<string, mixed> $options
     * @return array{created: bool, outcome: string, job: array<string, mixed>}
     */
    public function push(string $topic, mixed $body = null, array $options = []): array
    {
        return $this->request('POST', '/v1/jobs', ['topic' => $topic, 'body' => $body] + $options);
    }

    /**
     * Pushes up to 1000 jobs (each ['topic' => …, 'body' => …, …]); all are validated before any is stored.
     * @param list<array<string, mixed>> $jobs
     * @return list<array{created: bool, outcome: string, job: array<string, mixed>}>
     */
    public function pushBatch(array $jobs): array
    {
        return $this->request('POST', '/v1/jobs/batch', ['jobs' => $jobs])['results'];
    }

    /** @return array<string, mixed> the job */
    public function get(string $id): array
    {
        return $this->request('GET', '/v1/jobs/' . rawurlencode($id))['job'];
    }

    /** @return array<string, mixed> the cancelled job */
    public function cancel(string $id, ?string $reason = null): array
    {
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/cancel', $reason === null ? new \stdClass() : ['reason' => $reason])['job'];
    }

    /** @return array<string, mixed> a topic's flow-control settings: ['topic' => …, 'rateLimit' => ['perSecond' => …, 'burst' => …]] */
    public function topicSettings(string $topic): array
    {
        return $this->request('GET', '/v1/topics/' . rawurlencode($topic) . '/settings');
    }

    /**
     * Replaces a topic's settings; `$rateLimit` as ['perSecond' => 50, 'burst' => 10], `$groupConcurrency` the
     * most jobs of one group reserved at once, `$groupRateLimit` each group's own rate limit (as `$rateLimit`);
     * a setting left null is cleared.
     * @param array<string, mixed>|null $rateLimit
     * @param array<string, mixed>|null $groupRateLimit
     * @return array<string, mixed>
     */
    public function putTopicSettings(
        string $topic,
        ?array $rateLimit = null,
        ?int $groupConcurrency = null,
        ?array $groupRateLimit = null,
    ): array {
        $body = array_filter(
            ['rateLimit' => $rateLimit, 'groupConcurrency' => $groupConcurrency, 'groupRateLimit' => $groupRateLimit],
            fn ($value) => $value !== null,
        );
        return $this->request('PUT', '/v1/topics/' . rawurlencode($topic) . '/settings', $body ?: new \stdClass());
    }

    /**
     * Pauses one group of a topic (its jobs stay ready, the topic's others go) until resumed, or for $delayMs.
     * @param int|string|null $delayMs milliseconds, or a text such as "15m"
     * @return array<string, mixed> {topic, group, paused, pausedUntil}
     */
    public function pauseGroup(string $topic, string $group, int|string|null $delayMs = null): array
    {
        $body = $delayMs === null ? new \stdClass() : ['delayMs' => $delayMs];
        return $this->request('POST', $this->groupPath($topic, $group) . '/pause', $body);
    }

    /** @return array<string, mixed> {topic, group, paused: false, pausedUntil: null} */
    public function resumeGroup(string $topic, string $group): array
    {
        return $this->request('POST', $this->groupPath($topic, $group) . '/resume', new \stdClass());
    }

    /** @return list<array<string, mixed>> the topic's paused groups, by name: {group, pausedUntil (null: until resumed)} */
    public function pausedGroups(string $topic): array
    {
        return $this->request('GET', '/v1/topics/' . rawurlencode($topic) . '/groups/paused')['groups'];
    }

    private function groupPath(string $topic, string $group): string
    {
        return '/v1/topics/' . rawurlencode($topic) . '/groups/' . rawurlencode($group);
    }

    /** @return array<string, mixed> the job, ready now: only a delayed job (waiting for its due time or a retry) can be run now */
    public function runNow(string $id): array
    {
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/run-now', new \stdClass())['job'];
    }

    /**
     * Reserves up to `$count` ready jobs of `$topics`, waiting up to `$waitMs` for one (long-poll).
     * @param list<string> $topics
     * @return list<array{job: array<string, mixed>, token: string, deadlineAt: int}>
     */
    public function reserve(array $topics, int $count = 1, int $waitMs = 0, ?int $ttrMs = null): array
    {
        $body = ['topics' => $topics, 'count' => $count, 'waitMs' => $waitMs] + ($ttrMs === null ? [] : ['ttrMs' => $ttrMs]);
        return $this->request('POST', '/v1/reserve', $body, $this->timeoutMs + $waitMs)['reservations'];
    }

    /** @return array<string, mixed> the job, its reservation extended */
    public function touch(string $id, string $token, ?int $ttrMs = null): array
    {
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/touch', ['token' => $token] + ($ttrMs === null ? [] : ['ttrMs' => $ttrMs]))['job'];
    }

    /** @return array<string, mixed> the finished job */
    public function finish(string $id, string $token): array
    {
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/finish', ['token' => $token])['job'];
    }

    /**
     * Fails a reservation: retried after the job's backoff, or dead when no attempts remain (or `$bury`).
     * @return array{job: array<string, mixed>, decision: array<string, mixed>}
     */
    public function fail(string $id, string $token, ?string $error = null, ?int $retryDelayMs = null, bool $bury = false): array
    {
        $body = ['token' => $token, 'error' => $error] + ($retryDelayMs === null ? [] : ['retryDelayMs' => $retryDelayMs]) + ($bury ? ['bury' => true] : []);
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/fail', $body);
    }

    /** @return array<string, mixed> the job, given back */
    public function release(string $id, string $token): array
    {
        return $this->request('POST', '/v1/jobs/' . rawurlencode($id) . '/release', ['token' => $token])['job'];
    }

    /**
     * Settles many reservations in one call (`POST /v1/ack`): each ack is ['id', 'token', 'op' => 'finish' |
     * 'fail' | 'release' | 'touch', 'error'?, 'retryDelayMs'?, 'bury'?, 'ttrMs'?]. One result per ack, in
     * order: ['id', 'op', 'ok' => true, 'state'] or ['id', 'op', 'ok' => false, 'error' => [code, message]].
     * Against a server without that route it settles them one call each, with results of the same shape.
     * @param list<array<string, mixed>> $acks
     * @return list<array<string, mixed>>
     */
    public function ack(array $acks): array
    {
        if ($this->batchAcks !== false) {
            try {
                $results = $this->request('POST', '/v1/ack', ['acks' => $acks])['results'];
                $this->batchAcks = true;
                return $results;
            } catch (DelayqException $e) {
                if ($e->status !== 404 || $this->batchAcks === true) {
                    throw $e;
                }
                $this->batchAcks = false;
            }
        }
        return array_map(fn (array $ack): array => $this->ackOne($ack), $acks);
    }

    /**
     * Finishes every reservation given (as reserve() returned them) in one batch.
     * @param list<array{job: array<string, mixed>, token: string}> $reservations
     * @return list<array<string, mixed>>
     */
    public function finishAll(array $reservations): array
    {
        return $this->ack(array_map(fn (array $r): array => ['id' => $r['job']['id'], 'token' => $r['token'], 'op' => 'finish'], $reservations));
    }

    /** @param array<string, mixed> $ack */
    private function ackOne(array $ack): array
    {
        try {
            $job = match ($ack['op']) {
                'finish' => $this->finish($ack['id'], $ack['token']),
                'fail' => $this->fail($ack['id'], $ack['token'], $ack['error'] ?? null, $ack['retryDelayMs'] ?? null, $ack['bury'] ?? false)['job'],
                'release' => $this->release($ack['id'], $ack['token']),
                'touch' => $this->touch($ack['id'], $ack['token'], $ack['ttrMs'] ?? null),
                default => throw new DelayqException('E_VALIDATION', 'op: must be finish, fail, release or touch', 'op', [], 400),
            };
            return ['id' => $ack['id'], 'op' => $ack['op'], 'ok' => true, 'state' => $job['state']];
        } catch (DelayqException $e) {
            if ($e->status === 0 || $e->status >= 500) {
                throw $e;
            }
            $error = ['code' => $e->errorCode, 'message' => substr($e->getMessage(), strlen($e->errorCode) + 2)] + ($e->field === null ? [] : ['field' => $e->field]);
            return ['id' => $ack['id'], 'op' => $ack['op'], 'ok' => false, 'error' => $error];
        }
    }

    /** @return array<string, mixed> */
    private function request(string $method, string $path, mixed $body = null, ?int $timeoutMs = null): array
    {
        $headers = ['accept: application/json'];
        if ($this->token !== null) {
            $headers[] = 'authorization: Bearer ' . $this->token;
        }
        $options = [
            CURLOPT_URL => rtrim($this->url, '/') . $path,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT_MS => $timeoutMs ?? $this->timeoutMs,
            CURLOPT_CONNECTTIMEOUT_MS => 5000,
            CURLOPT_POSTFIELDS => null,
            CURLOPT_HTTPGET => $method === 'GET',
        ];
        if ($body !== null) {
            $headers[] = 'content-type: application/json';
            $options[CURLOPT_POSTFIELDS] = json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
        }
        $options[CURLOPT_HTTPHEADER] = $headers;
        curl_reset($this->curl);
        curl_setopt_array($this->curl, $options);
        $text = curl_exec($this->curl);
        if ($text === false) {
            throw new DelayqException('E_STORE_UNAVAILABLE', "cannot reach delayq at {$this->url}: " . curl_error($this->curl));
        }
        $status = (int) curl_getinfo($this->curl, CURLINFO_RESPONSE_CODE);
        $parsed = $text === '' ? null : json_decode((string) $text, true);
        if ($status >= 200 && $status < 300) {
            return is_array($parsed) ? $parsed : [];
        }
        $error = is_array($parsed) && is_array($parsed['error'] ?? null) ? $parsed['error'] : null;
        if ($error !== null && is_string($error['code'] ?? null)) {
            throw new DelayqException($error['code'], (string) ($error['message'] ?? $error['code']), $error['field'] ?? null, $error['details'] ?? [], $status);
        }
        throw new DelayqException($status === 503 ? 'E_STORE_UNAVAILABLE' : 'E_INTERNAL', "HTTP {$status}: " . substr((string) $text, 0, 200), null, ['status' => $status], $status);
    }
}
