import { urlLimitError } from '../../core/frontier.js';
import { defineScript, type LuaScript } from './lua-script.js';
import { PRELUDE } from './prelude.js';

const script = (name: string, body: string): LuaScript => defineScript(name, PRELUDE + body);

// The frontier's report of the URL limit as stored JSON, split where the limit goes: the Lua writes it word for word.
const URL_LIMIT_JSON = JSON.stringify(urlLimitError('\u0000')).split('\\u0000');

/** ARGV: prefix, now, meta JSON, expiresAt ms, maxSitemaps, maxUrls (0 = none), roots flag, createdAt, work pairs... */
export const CREATE_JOB = script(
  'create_job',
  `
if redis.call('EXISTS', STATUS) == 1 then
  if redis.call('GET', META) == ARGV[3] and (redis.call('GET', SECRETS) or '') == ARGV[9] then return {'exists'} end
  return {'conflict'}
end
write('SET', META, ARGV[3])
if ARGV[9] ~= '' then write('SET', SECRETS, ARGV[9]) end
write('HSET', STATUS, 'v', '1', 'state', 'running', 'urlsFound', 0, 'shardsWritten', 0,
  'sitemapsDone', 0, 'roots', 0, 'rootsFailed', 0, 'errorCount', 0, 'nextId', 0,
  'maxSitemaps', ARGV[5], 'maxUrls', ARGV[6], 'createdAt', ARGV[8], 'updatedAt', ARGV[8], 'expiresAt', ARGV[4])
local added = enqueue(ARGV, 10)
if ARGV[7] == '1' then redis.call('HINCRBY', STATUS, 'roots', added) end
touch()
return {'created'}
`,
);

/**
 * Shared by CLAIM and FINISH_WORK: claims one piece of work under `token` for `lease_ms`, expired (or released)
 * leases first, so killed work resumes soonest; work claimed `max_claims` times without its offset moving is not
 * handed out again (the job is stalled on it). A token that already holds work gets that work again (a retry).
 * Returns the reply and whether it wrote (a lease, a claim count: the caller then touches the keys).
 */
const CLAIM_FUNCTION = `
-- The active work and the holders of its leases, read once a step and kept as the step changes them (take, and
-- forget_active when work finishes): time stands still inside a script, so no lease expires meanwhile, and a batch
-- of finishes claims its next work without reading every lease again.
local active_ids, holder_of, gone = nil, {}, {}
local function scan_active()
  if active_ids then return end
  active_ids = redis.call('SMEMBERS', ACTIVE)
  -- The leases by MGET, 500 at a time (Lua's unpack has a limit): a claim looks at every piece of work in flight.
  for from = 1, #active_ids, 500 do
    local keys = {}
    for i = from, math.min(from + 499, #active_ids) do keys[#keys + 1] = lease_key(active_ids[i]) end
    local got = redis.call('MGET', unpack(keys))
    for j = 1, #keys do holder_of[active_ids[from + j - 1]] = got[j] end
  end
end
local function forget_active(id) gone[id] = true end

local function claim_work(token, lease_ms, max_claims)
  local st = state()
  if st ~= 'running' then return {'halted', st} end
  local function claimed(id)
    local counts = redis.call('HMGET', PROGRESS, id .. ':added', id .. ':claims')
    return {'claimed', id, redis.call('HGET', ITEMS, id), redis.call('HGET', OFFSETS, id) or '0', tonumber(counts[1] or '0'), tonumber(counts[2] or '0')}
  end
  local function take(id, fresh)
    redis.call('SET', lease_key(id), token, 'PX', lease_ms)
    holder_of[id] = token
    local claims = write('HINCRBY', PROGRESS, id .. ':claims', 1)
    -- Work fresh from the queue was never claimed: it starts at offset 0 and has queued nothing.
    if fresh then return {'claimed', id, redis.call('HGET', ITEMS, id), '0', 0, claims} end
    return claimed(id)
  end
  scan_active()
  local free, leased, stalled = false, 0, 0
  for _, id in ipairs(active_ids) do
    if not gone[id] then
      local holder = holder_of[id]
      if holder == token then return claimed(id) end
      if holder then leased = leased + 1
      elseif work_count(id, 'claims') >= max_claims then stalled = stalled + 1
      elseif not free then free = id end
    end
  end
  if free then return take(free, false), true end
  local id = redis.call('LPOP', PENDING)
  if id then
    write('SADD', ACTIVE, id)
    active_ids[#active_ids + 1] = id
    return take(id, true), true
  end
  if leased > 0 then return {'wait', leased} end
  if stalled > 0 then return {'stalled', stalled} end
  settle()
  redis.call('HSET', STATUS, 'updatedAt', NOW)
  return {'done'}
end
`;

/** ARGV: prefix, now, token, leaseMs, maxClaims. */
export const CLAIM = script(
  'claim',
  CLAIM_FUNCTION +
    `
local bad = check() if bad then return bad end
local reply, wrote = claim_work(ARGV[3], ARGV[4], tonumber(ARGV[5]))
if wrote then touch() end
return reply
`,
);

/**
 * Shared by COMMIT_SHARD and FINISH_WORK: refusal(...) says why a shard may not be written (nil: it may), and
 * write_shard(...) writes it with the offset advance and counters (the caller touches the job's keys after). Every
 * check comes before the first write.
 */
const COMMIT_FUNCTIONS = `
local function commit_mark(token, offset) return token .. ':' .. offset .. ':' end
-- lease_held: the caller read the lease already and found it \`token\`'s.
local function refusal(token, id, offset, count, lease_held)
  local st = state()
  if st ~= 'running' then return {'halted', st} end
  if not lease_held and redis.call('GET', lease_key(id)) ~= token then return lapsed(id, {'lease_lost'}) end
  local recorded = tonumber(redis.call('HGET', OFFSETS, id) or '0')
  if recorded ~= offset then return {'offset_mismatch', recorded} end
  local max = number_field('maxUrls')
  if max > 0 then
    local found = number_field('urlsFound')
    if found + count > max then return {'over_limit', max - found} end
  end
  return nil
end
-- finishing: the work ends in this step, which deletes its offset, commit mark and claim count: they are not written.
local function write_shard(mark, id, offset, count, json, finishing)
  local max = number_field('maxUrls')
  local shard = redis.call('HINCRBY', STATUS, 'shardsWritten', 1) - 1
  local shard_key = PREFIX .. 'shard:' .. shard
  write('SET', shard_key, json)
  if not finishing then
    write('HSET', OFFSETS, id, offset + count)
    write('HSET', COMMITS, id, mark .. shard)
    redis.call('HDEL', PROGRESS, id .. ':claims')
  end
  local found = redis.call('HINCRBY', STATUS, 'urlsFound', count)
  stamp()
  if max > 0 and found >= max then
    set_state('done')
    push_errors({'${URL_LIMIT_JSON[0]}' .. max .. '${URL_LIMIT_JSON[1]}'})
  end
  return shard, found
end
`;

/** ARGV: prefix, now, token, work id, offset, URL count, shard JSON. One step: shard, offset, counters. */
export const COMMIT_SHARD = script(
  'commit_shard',
  COMMIT_FUNCTIONS +
    `
local bad = check() if bad then return bad end
local token, id, offset, count = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local mark = commit_mark(token, ARGV[5])
local last = redis.call('HGET', COMMITS, id)
if last and string.sub(last, 1, #mark) == mark then return {'duplicate', tonumber(string.sub(last, #mark + 1))} end
local refused = refusal(token, id, offset, count)
if refused then return refused end
local shard, found = write_shard(mark, id, offset, count, ARGV[7])
touch()
return {'committed', shard, found}
`,
);

/** ARGV: prefix, now, roots flag, work id ('' for none), work pairs... What an active work adds is counted with it and is its progress. */
export const ENQUEUE = script(
  'enqueue',
  `
local bad = check() if bad then return bad end
local st = state()
if st ~= 'running' then return {'halted', st} end
local added, dups, rejected = enqueue(ARGV, 5)
if ARGV[3] == '1' then redis.call('HINCRBY', STATUS, 'roots', added) end
local id, work_added = ARGV[4], 0
if id ~= '' and redis.call('SISMEMBER', ACTIVE, id) == 1 then
  work_added = write('HINCRBY', PROGRESS, id .. ':added', added)
  if added > 0 then redis.call('HDEL', PROGRESS, id .. ':claims') end
end
redis.call('HSET', STATUS, 'updatedAt', NOW)
touch()
return {'enqueued', added, dups, rejected, work_added}
`,
);

/**
 * Shared by FINISH_WORK and FINISH_MANY: finish_one(A) ends one claimed piece of work, where A holds its arguments as
 * FINISH_WORK's ARGV lays them out: prefix, now, token, work id, count flag, failure (none|root|job), last shard's
 * offset ('' for none), its URL count, its JSON, next claim's token ('' for none), its leaseMs, its maxClaims,
 * validator key ('' none), validator JSON ('' none), unchanged sitemap URL ('' none), duplicates, cycle JSON ('' for
 * none), report JSON ('' none), error count N, N error JSONs, fallback pair?.
 * The last shard is committed in the same step; if it is refused, nothing is written ({'shard_refused'}). With a
 * claim token, the reply carries the next claim too (a retry with the same token gets the same work back). The
 * caller touches the keys once, after every finish of its step (a claim may have created keys).
 */
const FINISH_FUNCTION = `
local function finish_one(A)
  local token, id, failure = A[3], A[4], A[6]
  local function reply(tag)
    if A[10] == '' then return {tag, state()} end
    return {tag, state(), (claim_work(A[10], A[11], tonumber(A[12])))}
  end
  if redis.call('SISMEMBER', ACTIVE, id) == 0 then return reply('already') end
  if redis.call('GET', lease_key(id)) ~= token then return {'lease_lost'} end
  if A[7] ~= '' then
    local offset, count = tonumber(A[7]), tonumber(A[8])
    local mark = commit_mark(token, A[7])
    local last = redis.call('HGET', COMMITS, id)
    if not (last and string.sub(last, 1, #mark) == mark) then
      if refusal(token, id, offset, count, true) then return {'shard_refused'} end
      write_shard(mark, id, offset, count, A[9], true)
    end
  end
  local errors, last = {}, 19 + tonumber(A[19])
  for i = 20, last do errors[#errors + 1] = A[i] end
  redis.call('SREM', ACTIVE, id)
  forget_active(id)
  redis.call('DEL', lease_key(id))
  redis.call('HDEL', ITEMS, id)
  redis.call('HDEL', OFFSETS, id)
  redis.call('HDEL', COMMITS, id)
  redis.call('HDEL', PROGRESS, id .. ':claims', id .. ':added')
  if A[5] == '1' then redis.call('HINCRBY', STATUS, 'sitemapsDone', 1) end
  if A[13] ~= '' and A[14] ~= '' then write('HSET', VALIDATORS, A[13], A[14]) end
  if A[13] ~= '' and A[14] == '' then redis.call('HDEL', VALIDATORS, A[13]) end
  if A[15] ~= '' then write('SADD', UNCHANGED, A[15]) end
  if tonumber(A[16]) > 0 then redis.call('HINCRBY', STATUS, 'duplicates', A[16]) end
  if A[17] ~= '' then push_cycle(A[17]) end
  if A[18] ~= '' then write('HSET', REPORTS, id, A[18]) end
  push_errors(errors)
  if failure == 'job' and state() == 'running' then set_state('failed') end
  if failure == 'root' and state() == 'running' then
    local failed = redis.call('HINCRBY', STATUS, 'rootsFailed', 1)
    if failed >= number_field('roots') and (#A <= last or enqueue(A, last + 1) == 0) then set_state('failed') end
  end
  settle()
  stamp()
  return reply('finished')
end
`;

/** ARGV: prefix, now, then one finish's arguments as finish_one reads them from A[3] on. */
export const FINISH_WORK = script(
  'finish_work',
  COMMIT_FUNCTIONS +
    CLAIM_FUNCTION +
    FINISH_FUNCTION +
    `
local bad = check() if bad then return bad end
local result = finish_one(ARGV)
touch()
return result
`,
);

/**
 * ARGV: prefix, now, then for each finish its argument count N and N arguments (FINISH_WORK's from ARGV[3] on).
 * The finishes apply in order, each as FINISH_WORK would apply it alone; the reply lists their replies in order.
 */
export const FINISH_MANY = script(
  'finish_many',
  COMMIT_FUNCTIONS +
    CLAIM_FUNCTION +
    FINISH_FUNCTION +
    `
local bad = check() if bad then return bad end
local replies, at = {}, 3
while at <= #ARGV do
  local count = tonumber(ARGV[at])
  local A = {ARGV[1], ARGV[2]}
  for j = 1, count do A[j + 2] = ARGV[at + j] end
  replies[#replies + 1] = finish_one(A)
  at = at + count + 1
end
touch()
return replies
`,
);

/** ARGV: prefix, now, token, work id. Compare-and-delete: only the holder frees its lease. */
export const RELEASE = script(
  'release',
  `
if redis.call('GET', lease_key(ARGV[4])) == ARGV[3] then
  redis.call('DEL', lease_key(ARGV[4]))
  return 1
end
return 0
`,
);

/**
 * ARGV: prefix, now, token, work id, leaseMs. Compare-and-renew: the holder's heartbeat keeps its short lease alive.
 * A renewal that comes too late tells a live worker from a killed one: its work's claims are not held against it.
 */
export const RENEW = script(
  'renew',
  `
if redis.call('GET', lease_key(ARGV[4])) == ARGV[3] then
  redis.call('PEXPIRE', lease_key(ARGV[4]), ARGV[5])
  return 1
end
return lapsed(ARGV[4], 0)
`,
);

/** ARGV: prefix, now, work id, identity key. Adds a redirect's final URL to the visited set, remembering which work added it. */
export const VISIT = script(
  'visit',
  `
local bad = check() if bad then return bad end
local owner_key = PREFIX .. 'redirect:' .. ARGV[4]
if redis.call('GET', owner_key) == ARGV[3] then return {'own'} end
if redis.call('SISMEMBER', VISITED, ARGV[4]) == 1 then return {'seen'} end
write('SADD', VISITED, ARGV[4])
write('SET', owner_key, ARGV[3])
touch()
return {'added'}
`,
);

/** ARGV: prefix, now, key/validator JSON pairs... The previous run's validators a job starts from, under the job's expiry. */
export const SEED_PREVIOUS = script(
  'seed_previous',
  `
local bad = check() if bad then return bad end
for i = 3, #ARGV - 1, 2 do write('HSET', PREVIOUS, ARGV[i], ARGV[i + 1]) end
touch()
return {'seeded'}
`,
);

/** ARGV: prefix, now. Clears the claims-without-progress of every active work: each may be claimed again (a retry of a stalled job). */
export const RETRY_STALLED = script(
  'retry_stalled',
  `
local bad = check() if bad then return bad end
local cleared = 0
for _, id in ipairs(redis.call('SMEMBERS', ACTIVE)) do cleared = cleared + redis.call('HDEL', PROGRESS, id .. ':claims') end
return {'retried', cleared}
`,
);

/**
 * ARGV: prefix, now, slice. Claims a queued slice's number for a running job (the status hash field `slices`, absent
 * before the first claim): only a number above the last claimed one.
 */
export const CLAIM_SLICE = script(
  'claim_slice',
  `
local bad = check() if bad then return bad end
if state() ~= 'running' then return {'ended'} end
if (tonumber(redis.call('HGET', STATUS, 'slices')) or 0) >= tonumber(ARGV[3]) then return {'taken'} end
redis.call('HSET', STATUS, 'slices', ARGV[3])
return {'claimed'}
`,
);

/** ARGV: prefix, now, slice. Gives a claimed number back, only while it is still the last one claimed. */
export const RELEASE_SLICE = script(
  'release_slice',
  `
local bad = check() if bad then return bad end
if redis.call('HGET', STATUS, 'slices') == ARGV[3] then redis.call('HSET', STATUS, 'slices', tonumber(ARGV[3]) - 1) end
return {'released'}
`,
);

/** ARGV: prefix, now. Only a running job becomes stopped; the status comes back in the same step. */
export const STOP = script(
  'stop',
  `
local bad = check() if bad then return bad end
if state() == 'running' then
  set_state('stopped')
  redis.call('HSET', STATUS, 'updatedAt', NOW)
  touch()
end
return status_reply()
`,
);

/** ARGV: prefix, now. Status hash, kept errors and cycles, frontier sizes and claims in one command. */
export const STATUS = script(
  'status',
  `
local bad = check() if bad then return bad end
return status_reply()
`,
);

/**
 * ARGV: prefix, now. Deletes every key of the job: the fixed keys, each shard (0..shardsWritten-1) and the lease
 * of each known work item, in batches (Lua's unpack has a limit). Returns the number of keys removed, or
 * {'not_found'}. Runs whatever the status hash holds, so a corrupt job can still be removed.
 */
export const DELETE_JOB = script(
  'delete_job',
  `
if redis.call('EXISTS', STATUS) == 0 then return {'not_found'} end
local removed = 0
local batch = {}
local function drop(key)
  batch[#batch + 1] = key
  if #batch >= 500 then
    removed = removed + redis.call('DEL', unpack(batch))
    batch = {}
  end
end
local shards = tonumber(redis.call('HGET', STATUS, 'shardsWritten')) or 0
for n = 0, shards - 1 do drop(PREFIX .. 'shard:' .. n) end
if redis.call('TYPE', ACTIVE).ok == 'set' then
  for _, id in ipairs(redis.call('SMEMBERS', ACTIVE)) do drop(lease_key(id)) end
end
if redis.call('TYPE', ITEMS).ok == 'hash' then
  for _, id in ipairs(redis.call('HKEYS', ITEMS)) do drop(lease_key(id)) end
end
-- A redirect's owner key is named after the visited identity it claimed (VISIT).
if redis.call('TYPE', VISITED).ok == 'set' then
  for _, key in ipairs(redis.call('SMEMBERS', VISITED)) do drop(PREFIX .. 'redirect:' .. key) end
end
for i = 1, #KEYS do drop(KEYS[i]) end
if #batch > 0 then removed = removed + redis.call('DEL', unpack(batch)) end
return {'deleted', removed}
`,
);
