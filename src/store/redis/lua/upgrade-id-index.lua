--[[ upgrade-id-index: adds the given jobs to their topics' id indexes (id-index.lua), one slice of a
  partition written before the indexes existed (id-index.ts buildIdIndex walks the partition with HSCAN).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2…] ids (a job deleted since is skipped; one indexed already stays as it is)
  Returns: how many ids were added.
]]
local jobs, tp = KEYS[1], ARGV[1]
local byTopic, added = {}, 0
for i = 2, #ARGV do
  local id = ARGV[i]
  local packed = redis.call('HGET', jobs, id)
  if packed then
    local topic = readHead(packed).topic
    local ix = topicIds(tp, topic)
    local bound = idPageOf(ix.dir, id)
    if not bound or redis.call('ZSCORE', idPageKey(ix, bound), id) == false then
      local list = byTopic[topic]
      if not list then
        list = {}
        byTopic[topic] = list
      end
      list[#list + 1] = id
    end
  end
end
for topic, ids in pairs(byTopic) do
  table.sort(ids)
  indexIds(topicIds(tp, topic), ids)
  added = added + #ids
end
return added
