--[[ record: the stored job record's codec, which scripts.ts inserts after each script's header (with
  int() and readyMember(), the helpers that are not codec). This is
  layout 3 (RECORD_LAYOUT in packed-record.ts): a change to the layout takes a new number. A record
  is head .. body .. history, integers big-endian (Redis Lua's struct library; Node: packed-record.ts):
  head    B  state (bits 0-2: 1 delayed … 7 expired) + 8 ttl, 16 readyAt, 32 reservedAt, 64 finishedAt and
             128 lastError when that field is present
          H  attempts  h priority  I4 ttrMs  i6 createdAt  i6 runAt  I3 delayed bucket   (24 bytes)
          then only the fields present, in this order: i6 ttlMs, i6 readyAt, i6 reservedAt, i6 finishedAt,
          I4-length lastError, i6 deadlineAt and B-length token (these two only while reserved, state 3),
          or the B-length token that finished the job (only when finished, state 4: a repeat of that
          finish is answered as done); then the B-length topic.
  body    msgpack array {tag, bizKey, body, retry} (null = false), packed once by push-args.ts; scripts copy
          it as bytes and never decode it (list and lapsed excepted).
  history one entry appended per transition: i6 at, B event × 8 + state (+128: a reason follows),
          H attempt, I3 node index, then the I4-length reason when flagged.
  Absent fields take no bytes: a delayed job with a 100-byte body is a 148-byte record (jemalloc's
  160-byte class). Widths: topic ≤ 255 bytes, attempts ≤ 65535, bucket and node index < 2^24.
  A transition reads the head, writes a new one and appends an entry, copying the rest as bytes: ≈ 1.5 µs
  a job, where cmsgpack.unpack + pack of the whole record (body and history) cost ≈ 3.
]]
local HEAD = '>BHhI4i6i6I3'
local BUCKET_AT = 22 -- 1-based offset of the I3 bucket in the head (push.lua writes it)

-- The head every reserved job has (state 3 with readyAt and reservedAt, no ttl, no error) in one unpack:
-- what finish reads for each job. A Lua call or field test costs about as much as the work here, and
-- this path reads that head in ≈ 0.7–1.2 µs against ≈ 2.3 for the general one (EVAL loop of 100k).
local RESERVED = 3 + 16 + 32
local RESERVED_HEAD = HEAD .. 'i6i6i6Bc0'
-- A finished job keeps the token that finished it (h.token), without a deadline.
local FINISHED_STATE = 4
local function readReservedHead(s, h)
  local _, pos
  _, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, h.readyAt, h.reservedAt, h.deadline, h.token, pos =
    struct.unpack(RESERVED_HEAD, s)
  h.state, h.ttl, h.finishedAt, h.lastError, h.topicAt = 3, false, false, false, pos
  h.topic, h.bodyAt = struct.unpack('>Bc0', s, pos)
  return h
end

-- The head's fields, into h (a table the script reuses for each job of a batch) or a new table; absent
-- fields are false. h.topicAt is where the topic starts, h.bodyAt where the body starts.
local function readHead(s, h)
  h = h or {}
  if string.byte(s, 1) == RESERVED then return readReservedHead(s, h) end
  local b, pos
  b, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, pos = struct.unpack(HEAD, s)
  local state = b % 8
  h.state, h.ttl, h.readyAt, h.reservedAt, h.finishedAt, h.deadline, h.token, h.lastError =
    state, false, false, false, false, false, false, false
  if b ~= state then
    if bit.band(b, 8) ~= 0 then h.ttl, pos = struct.unpack('>i6', s, pos) end
    if bit.band(b, 16) ~= 0 then h.readyAt, pos = struct.unpack('>i6', s, pos) end
    if bit.band(b, 32) ~= 0 then h.reservedAt, pos = struct.unpack('>i6', s, pos) end
    if bit.band(b, 64) ~= 0 then h.finishedAt, pos = struct.unpack('>i6', s, pos) end
    if b >= 128 then h.lastError, pos = struct.unpack('>I4c0', s, pos) end
  end
  if state == 3 then
    h.deadline, h.token, pos = struct.unpack('>i6Bc0', s, pos)
  elseif state == FINISHED_STATE then
    h.token, pos = struct.unpack('>Bc0', s, pos)
  end
  h.topicAt = pos
  h.topic, h.bodyAt = struct.unpack('>Bc0', s, pos)
  return h
end

-- The head up to the topic, for h's fields (false = absent); deadline and token only in state 3.
local FINISHED = 4 + 16 + 32 + 64
local FINISHED_HEAD = HEAD .. 'i6i6i6Bc0'
local function writeHead(h)
  -- The two heads of a drained job's transitions, in one pack (as readReservedHead reads one of them).
  if not h.ttl and not h.lastError and h.readyAt and h.reservedAt then
    if h.state == 3 and not h.finishedAt then
      return struct.pack(RESERVED_HEAD, RESERVED, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, h.readyAt,
        h.reservedAt, h.deadline, #h.token, h.token)
    elseif h.state == 4 and h.finishedAt then
      local token = h.token or ''
      return struct.pack(FINISHED_HEAD, FINISHED, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, h.readyAt,
        h.reservedAt, h.finishedAt, #token, token)
    end
  end
  local flags, opt = h.state, ''
  if h.ttl then flags, opt = flags + 8, opt .. struct.pack('>i6', h.ttl) end
  if h.readyAt then flags, opt = flags + 16, opt .. struct.pack('>i6', h.readyAt) end
  if h.reservedAt then flags, opt = flags + 32, opt .. struct.pack('>i6', h.reservedAt) end
  if h.finishedAt then flags, opt = flags + 64, opt .. struct.pack('>i6', h.finishedAt) end
  if h.lastError then flags, opt = flags + 128, opt .. struct.pack('>I4c0', #h.lastError, h.lastError) end
  if h.state == 3 then
    opt = opt .. struct.pack('>i6Bc0', h.deadline, #h.token, h.token)
  elseif h.state == FINISHED_STATE then
    local token = h.token or ''
    opt = opt .. struct.pack('>Bc0', #token, token)
  end
  return struct.pack(HEAD, flags, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket) .. opt
end

-- The instant to stamp a transition with: now, but never before a time the record already holds. Two
-- processes' clocks may differ by a clock sync's round trip (redis-clock.ts); a job's history and times
-- stay in order whichever of them moves it.
local function stampAfter(h, now)
  return math.max(now, h.createdAt, h.readyAt or now, h.reservedAt or now, h.finishedAt or now)
end

-- One history entry; events are 1-based indexes into JOB_EVENTS (job.ts), reason false = none.
local function entry(at, event, state, attempt, node, reason)
  if not reason then return struct.pack('>i6BHI3', at, event * 8 + state, attempt, node) end
  return struct.pack('>i6BHI3I4c0', at, event * 8 + state + 128, attempt, node, #reason, reason)
end

-- The record after a transition: the new head, then topic, body and history copied as they were, and
-- one more entry. (The topic never changes.)
local function rewrite(s, h, at, event, reason, node)
  return writeHead(h) .. string.sub(s, h.topicAt) .. entry(at, event, h.state, h.attempts, node, reason)
end

-- A number as redis.call's argument, for the scores a batch writes. Redis 7.0 prints a Lua number
-- argument with "%.17g", and glibc's exact float printing of 13-digit ms times was ≈ 9 % of a burst
-- drain's Redis CPU (perf on redis-server); "%d" is far cheaper, and a batch's jobs share a few values,
-- so each is printed once per call. Integers only (ms times, counts).
local intTexts = {}
local function int(n)
  local s = intTexts[n]
  if not s then
    s = string.format('%d', n)
    intTexts[n] = s
  end
  return s
end

-- A ready job's member of its topic's ready set, whose score is the priority: members of one priority
-- sort bytewise by runAt, then createdAt (big-endian, so bytes order as numbers), then id: the ready order
-- (src/store/ready-order.ts) is the set's own order. The id starts at byte READY_ID_AT.
local READY_ID_AT = 13
local function readyMember(h, id)
  return struct.pack('>i6i6', h.runAt, h.createdAt) .. id
end

-- The body's fields {tag, bizKey, body, retry} (for the rare scripts that need them).
local function readBody(s, h)
  local _, fields = cmsgpack.unpack_one(s, h.bodyAt - 1)
  return fields
end
