<?php
// A pheanstalk 4 user's round trip, as the Debian package installs it (php-pda-pheanstalk). Usage:
// php pheanstalk-round-trip.php <port> <tube>; prints one JSON transcript (no server-specific ids),
// compared across delayq and beanstalkd by test/beanstalkd/third-party-clients.test.ts.
require_once '/usr/share/php/Pheanstalk/autoload.php';

use Pheanstalk\Pheanstalk;

[$script, $port, $tube] = $argv;
$p = Pheanstalk::create('127.0.0.1', (int) $port);
$out = [];
$p->useTube($tube);
$p->watch($tube);
$p->ignore('default');

// put, reserve, delete
$put = $p->put('hello from php', 100, 0, 30);
$job = $p->reserve();
$out['reserved same job'] = $job->getId() === $put->getId();
$out['reserved body'] = $job->getData();
$p->delete($job);
try {
    $p->peek($put);
    $out['peek deleted'] = 'found';
} catch (Exception $e) {
    $out['peek deleted'] = get_class($e);
}

// release with a delay, touch, bury, kick, stats-job
$put = $p->put('work', 5, 0, 10);
$job = $p->reserve();
$p->release($job, 5, 1);
$out['after release'] = $p->statsJob($put)['state'];
$out['reserve during delay'] = $p->reserveWithTimeout(0) === null ? 'timed out' : 'got one';
$job = $p->reserveWithTimeout(5);
$out['reserved after delay'] = $job !== null && $job->getId() === $put->getId();
$p->touch($job);
$p->bury($job, 5);
$stats = $p->statsJob($put);
$out['after bury'] = [$stats['state'], $stats['pri'], $stats['tube'], $stats['buries'], $stats['reserves']];
$out['peek buried same job'] = $p->peekBuried()->getId() === $put->getId();
$out['kicked'] = $p->kick(10);
$out['after kick'] = $p->statsJob($put)['state'];
$out['peek ready same job'] = $p->peekReady()->getId() === $put->getId();
$p->delete($put);

// delayed: peek-delayed, kick-job, stats-tube
$put = $p->put('later', 1024, 60, 10);
$out['peek delayed same job'] = $p->peekDelayed()->getId() === $put->getId();
$tubeStats = $p->statsTube($tube);
$out['tube delayed'] = $tubeStats['current-jobs-delayed'];
$out['tube name'] = $tubeStats['name'];
$p->kickJob($put);
$out['after kick-job'] = $p->statsJob($put)['state'];
$p->delete($put);

// pause-tube
$put = $p->put('paused');
$p->pauseTube($tube, 1);
$out['reserve while paused'] = $p->reserveWithTimeout(0) === null ? 'timed out' : 'got one';
$job = $p->reserveWithTimeout(5);
$out['reserved after pause'] = $job !== null && $job->getId() === $put->getId();
$p->delete($job);

$out['watching'] = $p->listTubesWatched();
$out['using'] = $p->listTubeUsed();
echo json_encode($out), "\n";
