--[[ peek: the first job of a topic in one state in this partition, read only; the client merges the
  partitions' answers in the peek order (src/store/peek-order.ts).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] topic  ARGV[3] state (STATE_DELAYED, STATE_READY or STATE_DEAD)
  ARGV[4] rank in the due index to start at, ARGV[5] most due-index entries to read (delayed only)
  Returns: {id, record as stored} | {} none | {'', next rank}: delayed, none in this slice of the due
  index, read again from the next rank. The due index holds each delayed set's head in due order, so the
  topic's first entry names the set that holds its earliest job; a call reads at most ARGV[5] entries so
  Redis is never held long.
]]
local jobs, dueidx, tp, topic, state = KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3])
local id
if state == STATE_READY then
  local head = redis.call('ZRANGE', tp .. 'ready:' .. topic, 0, 0)[1]
  if head then id = string.sub(head, READY_ID_AT) end
elseif state == STATE_DEAD then
  id = redis.call('ZRANGE', tp .. 'dead:' .. topic, 0, 0)[1]
else
  local rank, most, prefix = tonumber(ARGV[4]), tonumber(ARGV[5]), topic .. '#'
  local heads = redis.call('ZRANGE', dueidx, rank, rank + most - 1)
  for i = 1, #heads do
    if string.sub(heads[i], 1, #prefix) == prefix then
      id = redis.call('ZRANGE', tp .. 'delayed:' .. heads[i], 0, 0)[1]
      break
    end
  end
  if not id and #heads == most then return { '', rank + most } end
end
if not id then return {} end
return { id, redis.call('HGET', jobs, id) }
