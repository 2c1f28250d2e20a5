// `npm run bench:scale`'s own arithmetic and page (numbers are measured in bench/scale/, never here): its
// command line, the jobs it loads, and the page and charts rendered from a results file.
import { describe, expect, it } from 'vitest';
import { BULLMQ_SHAPE } from '../../bench/scale/bullmq.js';
import { READS } from '../../bench/scale/checkpoint.js';
import { scaleJob, TOPICS } from '../../bench/scale/jobs.js';
import { checkpointsUpTo, parseScaleOptions } from '../../bench/scale/options.js';
import { mergeRun, type ScaleRecord } from '../../bench/scale/record.js';
import { renderScale, scaleFigures } from '../../bench/scale/report.js';
import { BODY_BYTES } from '../../bench/subject.js';

const DAY = 86_400_000;

describe('the command line', () => {
  it('loads to 10M by default at 0, 100k, 1M, 3M and 10M, every shape, BullMQ to the same', () => {
    const o = parseScaleOptions([]);
    expect(o.max).toBe(10_000_000);
    expect(o.checkpoints).toEqual([0, 100_000, 1_000_000, 3_000_000, 10_000_000]);
    expect(o.shapes).toEqual(['embedded', 'redis', 'postgres', 'mariadb', 'cluster']);
    expect(o.bullmqMax).toBe(10_000_000);
    expect(o.counts).toEqual({ batchJobs: 50_000, singleJobs: 20_000, streamS: 10, reads: 5, warmReads: 3 });
    expect(o.out.endsWith('bench/results/scale.md')).toBe(true);
    expect(o.jsonPath.endsWith('bench/results/scale.json')).toBe(true);
  });

  it('takes a short path with small counts, the backlogs below --max and --max itself', () => {
    const o = parseScaleOptions(['--max=20000', '--shapes=redis,cluster', '--no-bullmq', '--out=.tmp/s.md']);
    expect(o.checkpoints).toEqual([0, 20_000]);
    expect(o.shapes).toEqual(['redis', 'cluster']);
    expect(o.bullmqMax).toBe(0);
    expect(o.counts.batchJobs).toBeLessThan(10_000);
    expect(o.jsonPath.endsWith('.tmp/s.json')).toBe(true);
    expect(o.command).toBe('npm run bench:scale -- --max=20000 --shapes=redis,cluster --no-bullmq --out=.tmp/s.md');
    expect(checkpointsUpTo(2_000_000)).toEqual([0, 100_000, 1_000_000, 2_000_000]);
    expect(checkpointsUpTo(1_000_000)).toEqual([0, 100_000, 1_000_000]);
  });

  it('refuses a shape it does not know and a --max that is no count', () => {
    expect(() => parseScaleOptions(['--shapes=redis,sentinel'])).toThrow(/sentinel/);
    expect(() => parseScaleOptions(['--max=lots'])).toThrow(/--max/);
  });
});

describe('the jobs', () => {
  it('have 100-byte bodies, 8 topics in turn, a bizKey each, due over 10 min to 30 days, any prefix spread evenly', () => {
    const t0 = 1_800_000_000_000;
    const jobs = Array.from({ length: 1000 }, (_, n) => scaleJob(n, t0));
    expect(new Set(jobs.map((j) => JSON.stringify(j.body).length))).toEqual(new Set([BODY_BYTES]));
    expect(jobs.slice(0, TOPICS).map((j) => j.topic)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    expect(new Set(jobs.map((j) => j.bizKey)).size).toBe(1000);
    for (const j of jobs) {
      expect(j.runAt).toBeGreaterThanOrEqual(t0 + 10 * 60_000);
      expect(j.runAt).toBeLessThan(t0 + 30 * DAY);
      expect(j.body.d).toBe(j.runAt);
    }
    // The first 100 jobs already fall in each of the 30 days at most a few apart.
    const perDay = new Array(30).fill(0);
    for (const j of jobs.slice(0, 300)) perDay[Math.floor((j.runAt - t0) / DAY)]++;
    expect(Math.min(...perDay)).toBeGreaterThanOrEqual(8);
    expect(Math.max(...perDay)).toBeLessThanOrEqual(12);
    expect(scaleJob(7, t0)).toEqual(scaleJob(7, t0));
  });
});

function record(): ScaleRecord {
  const point = (shape: string, backlog: number, metrics: Record<string, number>) => ({ shape, backlog, metrics });
  return {
    info: {
      startedAt: '2026-11-27T10:00:00.000Z',
      finishedAt: '2026-11-27T10:42:00.000Z',
      command: 'npm run bench:scale',
      machine: { cpu: 'Test CPU', cores: 2, ramGiB: 8, node: 'v20', versions: { Redis: '7.0.15' }, commit: 'abc1234' },
      loadBefore: [0.4, 0.3, 0.2],
      loadAfter: [1, 1, 1],
      max: 1_000_000,
      checkpoints: [0, 100_000, 1_000_000],
      shapes: ['Redis', 'Redis Cluster, 3 masters'],
      counts: { batchJobs: 50_000, singleJobs: 20_000, streamS: 10, reads: 5 },
      failures: ['Redis at 1000000: restart: no'],
      missingReads: ['topics'],
    },
    points: [
      point('Redis', 0, {
        usedMemory: 1_000_000,
        pushBatch: 150_000,
        listTopicMedian: 1.2,
        listTopicMax: 3.4,
        load1: 0.5,
      }),
      point('Redis', 100_000, {
        usedMemory: 31_000_000,
        pushBatch: 140_000,
        getMedian: 0.4,
        getMax: 0.9,
        listTopicMedian: 1.3,
        listTopicMax: 2,
      }),
      point('Redis', 1_000_000, {
        usedMemory: 301_000_000,
        pushBatch: 145_000,
        getMedian: 0.5,
        getMax: 1.5,
        lateP99: 3,
        cancelled: 125_000,
        cancelRate: 25_000,
        cancelStreamP99: 6,
        cancelStreamMax: 15,
        purged: 135_000,
        purgeRate: 90_000,
        purgeSlowestHealthMs: 12.34,
      }),
      point('Redis Cluster, 3 masters', 100_000, {
        usedMemory: 40_000_000,
        shard0Memory: 14_000_000,
        shard0Keys: 900,
        shard0CpuUs: 4.25,
        shard1Memory: 13_000_000,
        shard1Keys: 800,
      }),
      point(BULLMQ_SHAPE, 0, { usedMemory: 1_000_000, pushBatch: 30_000 }),
      point(BULLMQ_SHAPE, 1_000_000, { usedMemory: 801_000_000, pushBatch: 28_000 }),
    ],
  };
}

describe('the scale page', () => {
  const { markdown, charts } = renderScale(record(), 'scale');

  it('draws one chart per figure it has values for, backlog on the x axis, a line per shape', () => {
    const ids = scaleFigures(record())
      .filter((f) => record().points.some((p) => f.value(p, undefined) !== undefined))
      .map((f) => `scale-${f.id}.svg`);
    expect(charts.map((c) => c.name)).toEqual(expect.arrayContaining(ids));
    for (const c of charts) {
      expect(c.svg.startsWith('<svg')).toBe(true);
      expect(markdown).toContain(`](${c.name})`);
    }
    const push = charts.find((c) => c.name === 'scale-push-batch.svg')!.svg;
    expect(push).toContain('>100k<');
    expect(push).toContain('>1M<');
    expect(push).toContain(`>${BULLMQ_SHAPE}<`);
    expect(push.match(/<circle/g)).toHaveLength(5);
  });

  it('tables each figure by shape and backlog, BullMQ last, reads as median (max)', () => {
    expect(markdown).toContain('| shape | 0 | 100k | 1M |');
    expect(markdown).toContain('| Redis | 150,000 | 140,000 | 145,000 |\n| BullMQ 6.7 (Redis) | 30,000 | – | 28,000 |');
    expect(markdown).toContain("## Read: a topic's jobs, first page, ms");
    expect(markdown).toContain('| Redis | 1.2 (3.4) | 1.3 (2.0) | – |');
    // Bytes per pending job: the growth of used_memory since backlog 0 ÷ the backlog.
    expect(markdown).toContain('| Redis | – | 300 | 300 |\n| BullMQ 6.7 (Redis) | – | – | 800 |');
  });

  it('states the run, its failures, the reads the build lacks, and the Cluster shard by shard', () => {
    expect(markdown).toContain('Command: `npm run bench:scale`.');
    expect(markdown).toContain('- Commit: abc1234.');
    expect(markdown).toContain('> - Redis at 1000000: restart: no');
    expect(markdown).toContain('Not offered by this build (404): topics.');
    expect(markdown).not.toContain('the topic list, first page, ms');
    expect(markdown).toContain('| shard 0 | – | 13 MiB, 900 keys, 4.3 µs/job | – |');
    expect(markdown).toContain('| shard 1 | – | 12 MiB, 800 keys | – |');
    expect(markdown).toContain('| Redis | 1M | 125,000 | 25,000 | 6 / 15 | 135,000 | 90,000 | 12.3 |');
    // A read with no value at any backlog has no section.
    for (const read of READS)
      expect(markdown.includes(`## Read: ${read.label}, ms`), read.id).toBe(['get', 'listTopic'].includes(read.id));
  });
});

describe('a run merged into earlier results (--merge)', () => {
  it('replaces the points and failures of the shapes it measured and states itself', () => {
    const earlier = record();
    const later = {
      ...earlier.info,
      startedAt: '2026-11-28T19:00:00.000Z',
      command: 'npm run bench:scale -- --shapes=redis --merge',
      failures: [],
    };
    const merged = mergeRun(earlier, later, ['Redis']);
    merged.finishedAt = '2026-11-28T19:20:00.000Z';
    merged.loadAfter = [1, 1, 1];
    expect(earlier.points.some((p) => p.shape === 'Redis')).toBe(false);
    expect(earlier.points.some((p) => p.shape === BULLMQ_SHAPE)).toBe(true);
    expect(earlier.info.failures.some((f) => f.startsWith('Redis at'))).toBe(false);
    earlier.points.push({ shape: 'Redis', backlog: 0, metrics: { pushBatch: 99_000 } });
    const { markdown } = renderScale(earlier, 'scale');
    expect(markdown).toContain('| Redis | 99,000 |');
    expect(markdown).toContain(
      '- Measured apart and merged into this run: Redis, from 2026-11-28 19:00 to 2026-11-28 19:20 UTC on abc1234',
    );
    expect(markdown).toContain('by `npm run bench:scale -- --shapes=redis --merge`.');
  });

  it('says which rows read each path warm and which right after the restart', () => {
    const earlier = record();
    delete earlier.info.counts.warmReads;
    const later = {
      ...earlier.info,
      counts: { ...earlier.info.counts, warmReads: 3 },
      startedAt: '2026-11-29T10:00:00.000Z',
    };
    const merged = mergeRun(earlier, later, ['Redis']);
    merged.finishedAt = '2026-11-29T10:20:00.000Z';
    earlier.points.push({ shape: 'Redis', backlog: 0, metrics: { delayedMedian: 5.1, delayedMax: 6 } });
    const { markdown } = renderScale(earlier, 'scale');
    expect(markdown).toContain('| Redis | 5.1 (6.0) |');
    expect(markdown).toContain(
      'Read right after the server restarted (its first runs of the path) (Redis: after 3 unrecorded read(s) of the path).',
    );
  });
});

describe('a run stopped before its end', () => {
  it('says so, on the run and on a merged run, rather than a span to nowhere', () => {
    const stopped = record();
    stopped.info.finishedAt = '';
    stopped.info.loadAfter = [];
    const later = { ...stopped.info, startedAt: '2026-11-28T19:00:00.000Z', command: 'npm run bench:scale -- --merge' };
    mergeRun(stopped, later, ['Redis']);
    const { markdown } = renderScale(stopped, 'scale');
    expect(markdown).toContain('- When: 2026-11-27 10:00 UTC; the run stopped before its end');
    expect(markdown).toContain('0.4 / 0.3 / 0.2 before; at each backlog');
    expect(markdown).toContain(
      'Redis, from 2026-11-28 19:00 UTC on abc1234 (load 0.4 / 0.3 / 0.2 before), a run stopped',
    );
    expect(markdown).not.toContain('NaN');
  });
});
