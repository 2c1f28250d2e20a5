<?php
// The consumer lifecycle through the PHP client against a real delayq (DELAYQ_URL, topic prefix
// DELAYQ_PREFIX). Prints one `ok <step>` line per step; any failure exits non-zero.
declare(strict_types=1);
require __DIR__ . '/../../../clients/php/src/DelayqClient.php';

use Delayq\DelayqClient;
use Delayq\DelayqException;

$client = new DelayqClient(getenv('DELAYQ_URL'));
$p = getenv('DELAYQ_PREFIX') ?: 'php';

function check(bool $ok, string $what): void
{
    if (!$ok) {
        fwrite(STDERR, "failed: {$what}\n");
        exit(1);
    }
}

function refused(callable $call): DelayqException
{
    try {
        $call();
    } catch (DelayqException $e) {
        return $e;
    }
    fwrite(STDERR, "a call that should fail succeeded\n");
    exit(1);
}

$e = refused(fn () => $client->push('not a topic'));
check($e->errorCode === 'E_VALIDATION' && $e->field === 'topic' && $e->status === 400, 'validation names the field');
echo "ok validation\n";

$client->push("{$p}-later", ['n' => 1], ['id' => "{$p}-c1", 'delayMs' => '1h']);
check($client->cancel("{$p}-c1")['state'] === 'cancelled', 'cancel');
check(refused(fn () => $client->cancel("{$p}-c1"))->errorCode === 'E_WRONG_STATE', 'second cancel refused');
echo "ok cancel\n";

check($client->push("{$p}-deb", ['n' => 1], ['id' => "{$p}-d1", 'delayMs' => '1h', 'onExists' => 'replace'])['outcome'] === 'created', 'upsert creates');
$replaced = $client->push("{$p}-deb", ['n' => 2], ['id' => "{$p}-d1", 'delayMs' => '2h', 'onExists' => 'replace']);
check($replaced['outcome'] === 'replaced' && $replaced['job']['body'] === ['n' => 2], 'upsert replaces');
$first = $client->push("{$p}-dd", ['n' => 1], ['dedupKey' => 'charge-1', 'dedupWindowMs' => '10m']);
$again = $client->push("{$p}-dd", ['n' => 2], ['id' => "{$p}-dd2", 'dedupKey' => 'charge-1', 'dedupWindowMs' => '10m']);
check($again['outcome'] === 'duplicate' && $again['job']['id'] === $first['job']['id'], 'dedup window answers the first job');
$client->push("{$p}-soon", ['n' => 1], ['id' => "{$p}-rn1", 'delayMs' => '1h']);
check($client->runNow("{$p}-rn1")['state'] === 'ready', 'run now');
check(refused(fn () => $client->runNow("{$p}-rn1"))->errorCode === 'E_WRONG_STATE', 'second run now refused');
echo "ok run now\n";

$due = (int) (microtime(true) * 1000) + 3600000;
$spread = $client->push("{$p}-spread", ['n' => 1], ['id' => "{$p}-sp1", 'runAt' => $due, 'spreadMs' => 60000])['job'];
check($spread['runAt'] >= $due && $spread['runAt'] < $due + 60000, 'spread within the window');
check(refused(fn () => $client->push("{$p}-spread", null, ['spreadMs' => -1]))->field === 'spreadMs', 'bad spreadMs named');
echo "ok spread\n";

// topic settings: a rate limit set, read back, refused naming its field, cleared
$settings = $client->putTopicSettings("{$p}-rated", ['perSecond' => 2.5, 'burst' => 4]);
check($settings['rateLimit'] === ['perSecond' => 2.5, 'burst' => 4], 'settings put');
check($client->topicSettings("{$p}-rated") === $settings, 'settings read');
check(refused(fn () => $client->putTopicSettings("{$p}-rated", ['perSecond' => 0]))->field === 'rateLimit.perSecond', 'rate 0 refused');
check($client->putTopicSettings("{$p}-rated") === ['topic' => "{$p}-rated"], 'settings cleared');
echo "ok settings\n";

// groups: on a store that keeps them (DELAYQ_GROUPS=1) one job of a group out at a time; elsewhere refused by name
if (getenv('DELAYQ_GROUPS') === '1') {
    check($client->putTopicSettings("{$p}-grp", null, 1) === ['topic' => "{$p}-grp", 'groupConcurrency' => 1], 'groupConcurrency put');
    $client->pushBatch([['topic' => "{$p}-grp", 'group' => 't1'], ['topic' => "{$p}-grp", 'group' => 't1']]);
    check($client->push("{$p}-grp", null, ['group' => 't2'])['job']['group'] === 't2', 'group shown');
    $groups = array_map(fn ($r) => $r['job']['group'], $client->reserve(["{$p}-grp"], 3, 0));
    sort($groups);
    check($groups === ['t1', 't2'], 'one job of a group out at a time');
    check(refused(fn () => $client->putTopicSettings("{$p}-grp", null, 0))->field === 'groupConcurrency', 'groupConcurrency 0 refused');
    // each group's own rate: one token per group, so one job of each of two groups, and a bad rate named
    check($client->putTopicSettings("{$p}-gr", null, null, ['perSecond' => 0.001]) === ['topic' => "{$p}-gr", 'groupRateLimit' => ['perSecond' => 0.001, 'burst' => 1]], 'groupRateLimit put');
    $client->pushBatch([['topic' => "{$p}-gr", 'group' => 'r1'], ['topic' => "{$p}-gr", 'group' => 'r1'], ['topic' => "{$p}-gr", 'group' => 'r2']]);
    $rated = array_map(fn ($r) => $r['job']['group'], $client->reserve(["{$p}-gr"], 3, 0));
    sort($rated);
    check($rated === ['r1', 'r2'], 'one job of each group by its rate');
    check(refused(fn () => $client->putTopicSettings("{$p}-gr", null, null, ['perSecond' => 0]))->field === 'groupRateLimit.perSecond', 'group rate 0 refused');
    // one group paused: its job stays ready while another group's goes; resumed, it goes
    $client->pushBatch([['topic' => "{$p}-gp", 'group' => 'held'], ['topic' => "{$p}-gp", 'group' => 'free']]);
    check($client->pauseGroup("{$p}-gp", 'held') === ['topic' => "{$p}-gp", 'group' => 'held', 'paused' => true, 'pausedUntil' => null], 'group paused');
    check($client->pausedGroups("{$p}-gp") === [['group' => 'held', 'pausedUntil' => null]], 'paused groups listed');
    check(array_map(fn ($r) => $r['job']['group'], $client->reserve(["{$p}-gp"], 5, 0)) === ['free'], 'paused group passed over');
    check($client->resumeGroup("{$p}-gp", 'held')['paused'] === false, 'group resumed');
    check(array_map(fn ($r) => $r['job']['group'], $client->reserve(["{$p}-gp"], 5, 0)) === ['held'], 'resumed group goes');
    check(refused(fn () => $client->pauseGroup("{$p}-gp", 'held', 'soon'))->field === 'delayMs', 'bad delayMs named');
} else {
    check(refused(fn () => $client->push("{$p}-grp", null, ['group' => 't1']))->field === 'group', 'group refused without groups');
}
echo "ok groups\n";

// a handler longer than the TTR stays reserved by touching at half the TTR
$client->push("{$p}-long", ['n' => 2], ['id' => "{$p}-l1"]);
[$r] = $client->reserve(["{$p}-long"], 1, 5000, 2000);
$until = microtime(true) + 5.0; // 2.5 TTRs
while (microtime(true) < $until) {
    usleep(500_000);
    $client->touch($r["job"]["id"], $r["token"], 2000);
}
[$result] = $client->finishAll([$r]);
check($result['ok'] === true && $result['state'] === 'finished', 'finish after touching');
check($client->get("{$p}-l1")['attempts'] === 1, 'delivered once');
echo "ok touch\n";

// a batch: finish, a stale token refused on its own, fail with bury
$client->pushBatch(array_map(fn ($i) => ['topic' => "{$p}-batch", 'id' => "{$p}-b{$i}", 'body' => $i], [1, 2, 3]));
$got = $client->reserve(["{$p}-batch"], 3, 5000);
check(count($got) === 3, 'three reserved');
$results = $client->ack([
    ['id' => $got[0]['job']['id'], 'token' => $got[0]['token'], 'op' => 'finish'],
    ['id' => $got[1]['job']['id'], 'token' => 'stale-token', 'op' => 'finish'],
    ['id' => $got[2]['job']['id'], 'token' => $got[2]['token'], 'op' => 'fail', 'error' => 'bad number', 'bury' => true],
]);
check(array_column($results, 'ok') === [true, false, true], 'batch results in order');
check($results[1]['error']['code'] === 'E_TOKEN_MISMATCH' && $results[2]['state'] === 'dead', 'batch outcomes');
$client->release($got[1]['job']['id'], $got[1]['token']);
echo "ok batch\n";

// fail → retry → dead
$client->push("{$p}-fail", null, ['id' => "{$p}-f1", 'retry' => ['maxAttempts' => 2, 'backoff' => '100ms']]);
for ($attempt = 1; $attempt <= 2; $attempt++) {
    [$f] = $client->reserve(["{$p}-fail"], 1, 5000);
    $answer = $client->fail($f['job']['id'], $f['token'], "boom {$attempt}");
    check($answer['decision']['action'] === ($attempt === 1 ? 'retry' : 'bury'), "fail decision {$attempt}");
}
$dead = $client->get("{$p}-f1");
check($dead['state'] === 'dead' && $dead['attempts'] === 2 && $dead['lastError'] === 'boom 2', 'dead after two attempts');
echo "ok fail-retry-dead\n";
echo "done\n";
