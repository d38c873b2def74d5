import { MAX_CYCLES_KEPT, MAX_ERRORS_KEPT } from '../job-store.js';
import { RECORD_VERSION } from '../records.js';

/**
 * Shared head of every job script. KEYS are the job's fixed keys (keys.ts order); ARGV[1] is the key prefix
 * (for the per-sitemap lease and per-shard keys, which share the job's `{id}` hash slot) and ARGV[2] the
 * caller's clock as ISO text. Scripts read and check everything before their first write: Redis does not
 * roll a script back when it fails half-way.
 */
export const PRELUDE = `
local STATUS, META, PENDING, ACTIVE, ITEMS, OFFSETS, COMMITS, VISITED, ERRORS, VALIDATORS, UNCHANGED, PREVIOUS =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12]
local PROGRESS, CYCLES, SECRETS, REPORTS = KEYS[13], KEYS[14], KEYS[15], KEYS[16]
local PREFIX, NOW = ARGV[1], ARGV[2]
local MAX_ERRORS, MAX_CYCLES = ${MAX_ERRORS_KEPT}, ${MAX_CYCLES_KEPT}
local NUMBER_FIELDS = {'urlsFound', 'shardsWritten', 'sitemapsDone', 'roots', 'rootsFailed', 'errorCount',
  'nextId', 'maxSitemaps', 'maxUrls', 'expiresAt'}

-- The limits and expiry are written once, when the job is created: check() keeps what it read of them, so a step
-- reads them once (as text: the expiry is an exact integer in ms).
local FIXED = {maxSitemaps = true, maxUrls = true, expiresAt = true}
local fixed = {}

-- The job's state, read with check() (or on first use) and kept as the step changes it (set_state).
local current_state

-- One HMGET on the common path (every script starts here); EXISTS only to tell a missing job from a foreign hash.
local function check()
  local values = redis.call('HMGET', STATUS, 'v', 'state', unpack(NUMBER_FIELDS))
  if values[1] ~= '${RECORD_VERSION}' then
    if redis.call('EXISTS', STATUS) == 0 then return {'not_found'} end
    return {'foreign'}
  end
  for i, field in ipairs(NUMBER_FIELDS) do
    if not tonumber(values[i + 2]) then return {'corrupt', field} end
    if FIXED[field] then fixed[field] = values[i + 2] end
  end
  current_state = values[2]
  return nil
end

local function state()
  if current_state == nil then current_state = redis.call('HGET', STATUS, 'state') end
  return current_state
end
-- A job that leaves 'running' never reads a sitemap again: its sealed request headers go with it.
local function set_state(st)
  redis.call('HSET', STATUS, 'state', st)
  if st ~= 'running' then redis.call('DEL', SECRETS) end
  current_state = st
end
local function field_text(field)
  if FIXED[field] and fixed[field] then return fixed[field] end
  return redis.call('HGET', STATUS, field)
end
local function number_field(field) return tonumber(field_text(field)) end
local function lease_key(id) return PREFIX .. 'lease:' .. id end

-- Every key a script writes gets the job's one absolute expiry, so all keys of a job vanish together. The expiry
-- never moves and a write keeps a key's expiry, so only the keys written in this step need it (a key emptied and
-- written again is a new key): write() notes them, touch() sets it on those alone, not on every key of the job.
-- STATUS is written with redis.call: only CREATE_JOB creates it (with write), and every other script's writes
-- come after check() found it. stamp() asks for \`updatedAt\`, which touch() writes once however many steps asked.
local written = {}
local stamp_due = false
local function write(command, key, ...)
  written[key] = true
  return redis.call(command, key, ...)
end
local function stamp() stamp_due = true end
local function touch()
  local at = field_text('expiresAt')
  for key in pairs(written) do redis.call('PEXPIREAT', key, at) end
  written = {}
  if stamp_due then redis.call('HSET', STATUS, 'updatedAt', NOW) end
  stamp_due = false
  return at
end

local function push_errors(list)
  if #list == 0 then return end
  local count = number_field('errorCount')
  for _, json in ipairs(list) do
    if count < MAX_ERRORS then write('RPUSH', ERRORS, json) end
    count = count + 1
  end
  redis.call('HSET', STATUS, 'errorCount', count)
end

-- Per-work counters: claims since the work's offset last moved, children it queued.
local function work_count(id, name) return tonumber(redis.call('HGET', PROGRESS, id .. ':' .. name) or '0') end

-- A holder whose lease lapsed came back (a late renewal, a refused commit): it was alive, only slow (a loaded
-- machine, a store failover), so the takeovers of its work are not claims without progress. Returns \`reply\`.
local function lapsed(id, reply)
  redis.call('HDEL', PROGRESS, id .. ':claims')
  return reply
end

local function push_cycle(json)
  local count = redis.call('HINCRBY', STATUS, 'cycleCount', 1)
  if count <= MAX_CYCLES then write('RPUSH', CYCLES, json) end
end

-- Cheapest test first: while work is queued (most steps) it is one call.
local function settle()
  if redis.call('LLEN', PENDING) == 0 and redis.call('SCARD', ACTIVE) == 0 and state() == 'running' then set_state('done') end
end

-- args[from..] holds pairs (identity key or '', work JSON); the visited set decides what is new. Below the limit,
-- SADD's reply tells a new key from a duplicate; at the limit, SISMEMBER tells a duplicate from a refusal. The ids
-- are counted here and \`nextId\` written once; new work goes in by one HSET and one RPUSH per 500.
local function enqueue(args, from)
  local max, next_id = number_field('maxSitemaps'), number_field('nextId')
  local visited = redis.call('SCARD', VISITED)
  local added, dups, rejected = 0, 0, 0
  local fields, ids = {}, {}
  local function flush()
    if #ids == 0 then return end
    write('HSET', ITEMS, unpack(fields))
    write('RPUSH', PENDING, unpack(ids))
    fields, ids = {}, {}
  end
  for i = from, #args, 2 do
    local key, verdict = args[i], 'new'
    if key ~= '' and visited >= max then
      verdict = redis.call('SISMEMBER', VISITED, key) == 1 and 'duplicate' or 'rejected'
    elseif key ~= '' then
      if write('SADD', VISITED, key) == 1 then visited = visited + 1 else verdict = 'duplicate' end
    end
    if verdict == 'duplicate' then dups = dups + 1
    elseif verdict == 'rejected' then rejected = rejected + 1
    else
      next_id = next_id + 1
      local id = string.format('%d', next_id)
      fields[#fields + 1] = id
      fields[#fields + 1] = args[i + 1]
      ids[#ids + 1] = id
      added = added + 1
      if #ids >= 500 then flush() end
    end
  end
  flush()
  if added > 0 then redis.call('HSET', STATUS, 'nextId', string.format('%d', next_id)) end
  return added, dups, rejected
end

-- The active work as claims see it: how much is leased, the fewest claims without progress, the most-claimed one.
local function frontier_reply()
  local leased, fewest, most, most_claims = 0, -1, nil, -1
  for _, id in ipairs(redis.call('SMEMBERS', ACTIVE)) do
    if redis.call('EXISTS', lease_key(id)) == 1 then leased = leased + 1 end
    local claims = work_count(id, 'claims')
    if fewest < 0 or claims < fewest then fewest = claims end
    if claims > most_claims then most, most_claims = id, claims end
  end
  local top = {}
  if most then top = {redis.call('HGET', ITEMS, most), tonumber(redis.call('HGET', OFFSETS, most) or '0'), most_claims} end
  return {leased, math.max(fewest, 0), top}
end

local function status_reply()
  return {'status', redis.call('HGETALL', STATUS), redis.call('LRANGE', ERRORS, 0, -1),
    redis.call('LLEN', PENDING), redis.call('SCARD', ACTIVE), redis.call('LRANGE', CYCLES, 0, -1), frontier_reply()}
end
`;
