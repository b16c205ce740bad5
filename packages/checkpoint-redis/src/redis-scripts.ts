import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * Key layout of one thread (all keys share the hash tag `{threadId}`, so one script can touch them):
 *
 *   <prefix>{<thread>}:m        hash  ttl, touched, lo/le/lx (lease owner, epoch, expiry)
 *   <prefix>{<thread>}:c        hash  ns \0 id                  → sum(16) body
 *   <prefix>{<thread>}:i:<ns>   zset  checkpoint ids (score 0, ordered by id)
 *   <prefix>{<thread>}:n        set   namespaces
 *   <prefix>{<thread>}:b        hash  ns \0 channel \0 version  → sum(16) kind(f|d|F|D) base \0 body
 *   <prefix>{<thread>}:w        hash  ns \0 id                  → JSON [[task, channel, sum, body(, ref)], ...]
 *   <prefix>{<thread>}:v        hash  content key               → body
 *
 * A long body is stored once per thread in `:v` under its content key: a blob whose kind is upper case
 * (F, D) holds that key where its body would be, a write holds '' as its body and the key fifth.
 *
 * Times come from the saver's clock (ARGV), never from the server, so a manual clock works in tests.
 */
const PRELUDE = `
local base = KEYS[1]
local M = base .. ':m'
local function all_keys()
  local keys = {M, base .. ':c', base .. ':b', base .. ':w', base .. ':n', base .. ':v'}
  for _, ns in ipairs(redis.call('SMEMBERS', base .. ':n')) do keys[#keys + 1] = base .. ':i:' .. ns end
  return keys
end
local function purge() redis.call('DEL', unpack(all_keys())) end
local function state(now)
  local t = redis.call('HMGET', M, 'ttl', 'touched')
  if not t[2] then return 'missing' end
  if t[1] and now >= tonumber(t[2]) + tonumber(t[1]) then return 'expired' end
  return 'live'
end
-- Like the memory saver's lookup: an expired thread is deleted on sight.
local function open(now)
  local s = state(now)
  if s == 'expired' then purge() end
  return s == 'live'
end
local function lease_fields()
  local l = redis.call('HMGET', M, 'lo', 'le', 'lx')
  return {l[1] or '', l[2] or '', l[3] or ''}
end
local function lease_ok(owner, epoch, now)
  local l = lease_fields()
  return l[1] == owner and l[2] == epoch and tonumber(l[3]) > now
end
local function refresh_ttl()
  local ttl = redis.call('HGET', M, 'ttl')
  if ttl then for _, k in ipairs(all_keys()) do redis.call('PEXPIRE', k, ttl) end end
end
-- Upserts writes (5 ARGV each from index i: task, channel, sum, body, ref or '') into the list of
-- checkpoint field f, keeping positions.
local function upsert_writes(f, i, n)
  if n == 0 then return end
  local cur = redis.call('HGET', base .. ':w', f)
  local list = cur and cjson.decode(cur) or {}
  for k = 0, n - 1 do
    local j = i + k * 5
    local entry = {ARGV[j], ARGV[j + 1], ARGV[j + 2], ARGV[j + 3]}
    if ARGV[j + 4] ~= '' then entry[5] = ARGV[j + 4] end
    local found = false
    for at, w in ipairs(list) do
      if w[1] == ARGV[j] and w[2] == ARGV[j + 1] then list[at] = entry; found = true; break end
    end
    if not found then list[#list + 1] = entry end
  end
  redis.call('HSET', base .. ':w', f, cjson.encode(list))
end
-- Stores the long bodies at ARGV i (their count), then (content key, body) pairs, once per thread.
local function store_bodies(i)
  for k = 0, tonumber(ARGV[i]) - 1 do redis.call('HSETNX', base .. ':v', ARGV[i + 1 + k * 2], ARGV[i + 2 + k * 2]) end
end
-- The kind letter of a blob value, and whether its body is a content key.
local function blob_kind(v)
  local k = string.sub(v, 17, 17)
  return string.lower(k), k == 'F' or k == 'D'
end
`;

/**
 * ARGV: now, ns, id, checkpoint value, has lease (1|0), lease owner, lease epoch, n blobs,
 * (field, value)…, n writes, (task, channel, sum, body, ref)…, n bodies, (content key, body)…
 */
const PUT = `
local now = tonumber(ARGV[1])
local ns, id = ARGV[2], ARGV[3]
local live = open(now)
if ARGV[5] == '1' and not (live and lease_ok(ARGV[6], ARGV[7], now)) then
  local l = lease_fields()
  return {'LEASE_LOST', l[1], l[2], l[3]}
end
if not live then redis.call('HSET', M, 'touched', ARGV[1]) end
redis.call('HSET', base .. ':c', ns .. '\\0' .. id, ARGV[4])
redis.call('ZADD', base .. ':i:' .. ns, 0, id)
redis.call('SADD', base .. ':n', ns)
local nb = tonumber(ARGV[8])
for k = 0, nb - 1 do redis.call('HSET', base .. ':b', ARGV[9 + k * 2], ARGV[10 + k * 2]) end
local wi = 9 + nb * 2
upsert_writes(ns .. '\\0' .. id, wi + 1, tonumber(ARGV[wi]))
store_bodies(wi + 1 + tonumber(ARGV[wi]) * 5)
redis.call('HSET', M, 'touched', ARGV[1])
refresh_ttl()
return {'OK'}
`;

/**
 * ARGV: now, ns, checkpoint id, has lease (1|0), lease owner, lease epoch, n writes,
 * (task, channel, sum, body, ref)…, n bodies, (content key, body)…
 */
const PUT_WRITES = `
local now = tonumber(ARGV[1])
local ns, id = ARGV[2], ARGV[3]
local live = open(now)
if ARGV[4] == '1' and not (live and lease_ok(ARGV[5], ARGV[6], now)) then
  local l = lease_fields()
  return {'LEASE_LOST', l[1], l[2], l[3]}
end
if not live or redis.call('HEXISTS', base .. ':c', ns .. '\\0' .. id) == 0 then return {'NOT_FOUND'} end
upsert_writes(ns .. '\\0' .. id, 8, tonumber(ARGV[7]))
store_bodies(8 + tonumber(ARGV[7]) * 5)
redis.call('HSET', M, 'touched', ARGV[1])
refresh_ttl()
return {'OK'}
`;

/** ARGV: now, ns, checkpoint id ('' = latest). Returns {id, value} or {}. */
const HEAD = `
if not open(tonumber(ARGV[1])) then return {} end
local ns, id = ARGV[2], ARGV[3]
if id == '' then id = redis.call('ZREVRANGE', base .. ':i:' .. ns, 0, 0)[1] end
if not id then return {} end
local v = redis.call('HGET', base .. ':c', ns .. '\\0' .. id)
if not v then return {} end
return {id, v}
`;

/** ARGV: now, ns, before ('' = none), limit. Returns {found(0|1), id1, value1, id2, value2, …}. */
const PAGE = `
if not open(tonumber(ARGV[1])) then return {0} end
local ns = ARGV[2]
local hi = ARGV[3] == '' and '+' or ('(' .. ARGV[3])
local ids = redis.call('ZREVRANGEBYLEX', base .. ':i:' .. ns, hi, '-', 'LIMIT', 0, tonumber(ARGV[4]))
local out = {1}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', base .. ':c', ns .. '\\0' .. id) or ''
end
return out
`;

/**
 * ARGV: ns, checkpoint id, then (channel, version) pairs. Follows every delta chain back to a full
 * value. Returns {exists(0|1), writes JSON or '', n links, (channel, version, value) × n links, newest
 * link first, then (content key, body or nil) for every shared body the links and writes refer to}.
 */
const VALUES = `
local ns, id = ARGV[1], ARGV[2]
if redis.call('HEXISTS', base .. ':c', ns .. '\\0' .. id) == 0 then return {0} end
local writes = redis.call('HGET', base .. ':w', ns .. '\\0' .. id) or ''
local out = {1, writes, 0}
local refs, seen = {}, {}
local function want(ref) if not seen[ref] then seen[ref] = true; refs[#refs + 1] = ref end end
for k = 3, #ARGV, 2 do
  local channel, version = ARGV[k], ARGV[k + 1]
  for depth = 1, 1000000 do
    local v = redis.call('HGET', base .. ':b', ns .. '\\0' .. channel .. '\\0' .. version)
    if not v then break end
    out[#out + 1] = channel; out[#out + 1] = version; out[#out + 1] = v
    out[3] = out[3] + 1
    local p = string.find(v, '\\0', 18, true)
    local kind, shared = blob_kind(v)
    if shared and p then want(string.sub(v, p + 1)) end
    if kind ~= 'd' or not p then break end
    version = string.sub(v, 18, p - 1)
  end
end
if writes ~= '' then
  local ok, list = pcall(cjson.decode, writes)
  if ok and type(list) == 'table' then
    for _, w in ipairs(list) do if type(w) == 'table' and type(w[5]) == 'string' then want(w[5]) end end
  end
end
for _, ref in ipairs(refs) do
  out[#out + 1] = ref; out[#out + 1] = redis.call('HGET', base .. ':v', ref)
end
return out
`;

/** ARGV: now. Returns the lease fields {owner, epoch, expiresAt} ('' when none), after expiry. */
const READ_LEASE = `
open(tonumber(ARGV[1]))
return lease_fields()
`;

/**
 * ARGV: now, expected owner/epoch/expiry (as read), new owner/epoch/expiry. Sets the lease only if it
 * is still what the caller read (compare-and-set), so the lease rule itself stays in JavaScript.
 */
const CAS_LEASE = `
local now = tonumber(ARGV[1])
local live = open(now)
local l = lease_fields()
if l[1] ~= ARGV[2] or l[2] ~= ARGV[3] or l[3] ~= ARGV[4] then return 0 end
if not live then redis.call('HSET', M, 'touched', ARGV[1]) end
redis.call('HSET', M, 'lo', ARGV[5], 'le', ARGV[6], 'lx', ARGV[7])
return 1
`;

/**
 * CAS_LEASE, then HEAD in the same script: the lease and the read of the checkpoint (ARGV 8, 9: ns and
 * id, '' = latest) are one atomic step. Returns {0} when the lease changed since it was read, else
 * {1, id, value} or {1}.
 */
const CAS_LEASE_HEAD = `
local now = tonumber(ARGV[1])
local live = open(now)
local l = lease_fields()
if l[1] ~= ARGV[2] or l[2] ~= ARGV[3] or l[3] ~= ARGV[4] then return {0} end
if not live then redis.call('HSET', M, 'touched', ARGV[1]) end
redis.call('HSET', M, 'lo', ARGV[5], 'le', ARGV[6], 'lx', ARGV[7])
local ns, id = ARGV[8], ARGV[9]
if id == '' then id = redis.call('ZREVRANGE', base .. ':i:' .. ns, 0, 0)[1] end
if not id then return {1} end
local v = redis.call('HGET', base .. ':c', ns .. '\\0' .. id)
if not v then return {1} end
return {1, id, v}
`;

/**
 * What PUT_WRITES, PUT and RELEASE_LEASE do, in one script; every check comes before the first write.
 * ARGV: now, has lease (1|0), lease owner, lease epoch, release (1|0), writes ns, writes checkpoint id
 * ('' = no writes), n writes, (task, channel, sum, body, ref)…, has put (1|0), ns, id, checkpoint value,
 * n blobs, (field, value)…, n put writes, (task, channel, sum, body, ref)…, n bodies, (content key, body)…
 */
const COMMIT = `
local now = tonumber(ARGV[1])
local live = open(now)
if ARGV[2] == '1' and not (live and lease_ok(ARGV[3], ARGV[4], now)) then
  local l = lease_fields()
  return {'LEASE_LOST', l[1], l[2], l[3]}
end
local wns, wid, nw = ARGV[6], ARGV[7], tonumber(ARGV[8])
local p = 9 + nw * 5
local hasput = ARGV[p] == '1'
local pns, pid = ARGV[p + 1], ARGV[p + 2]
if wid ~= '' and not (hasput and pns == wns and pid == wid) then
  if not live or redis.call('HEXISTS', base .. ':c', wns .. '\\0' .. wid) == 0 then return {'NOT_FOUND'} end
end
if hasput then
  if not live then redis.call('HSET', M, 'touched', ARGV[1]) end
  redis.call('HSET', base .. ':c', pns .. '\\0' .. pid, ARGV[p + 3])
  redis.call('ZADD', base .. ':i:' .. pns, 0, pid)
  redis.call('SADD', base .. ':n', pns)
  local nb = tonumber(ARGV[p + 4])
  for k = 0, nb - 1 do redis.call('HSET', base .. ':b', ARGV[p + 5 + k * 2], ARGV[p + 6 + k * 2]) end
  local wi = p + 5 + nb * 2
  upsert_writes(pns .. '\\0' .. pid, wi + 1, tonumber(ARGV[wi]))
end
if wid ~= '' then upsert_writes(wns .. '\\0' .. wid, 9, nw) end
local wi = p + 5 + tonumber(ARGV[p + 4]) * 2
store_bodies(wi + 1 + tonumber(ARGV[wi]) * 5)
if ARGV[5] == '1' then
  local l = lease_fields()
  if l[1] == ARGV[3] and l[2] == ARGV[4] then redis.call('HSET', M, 'lx', '0') end
end
if hasput or wid ~= '' then
  redis.call('HSET', M, 'touched', ARGV[1])
  refresh_ttl()
end
return {'OK'}
`;

/** ARGV: now, owner, epoch, new expiry. Returns {'OK'} or {'LEASE_LOST', owner, epoch, expiry}. */
const RENEW_LEASE = `
local now = tonumber(ARGV[1])
if not (open(now) and lease_ok(ARGV[2], ARGV[3], now)) then
  local l = lease_fields()
  return {'LEASE_LOST', l[1], l[2], l[3]}
end
redis.call('HSET', M, 'lx', ARGV[4])
return {'OK'}
`;

/** ARGV: now, owner, epoch. */
const RELEASE_LEASE = `
if not open(tonumber(ARGV[1])) then return 0 end
local l = lease_fields()
if l[1] == ARGV[2] and l[2] == ARGV[3] then redis.call('HSET', M, 'lx', '0') end
return 1
`;

/** ARGV: now, ttl ms ('' = none). */
const SET_TTL = `
local now = tonumber(ARGV[1])
if not open(now) then return 0 end
redis.call('HSET', M, 'touched', ARGV[1])
if ARGV[2] == '' then
  redis.call('HDEL', M, 'ttl')
  for _, k in ipairs(all_keys()) do redis.call('PERSIST', k) end
else
  redis.call('HSET', M, 'ttl', ARGV[2])
  refresh_ttl()
end
return 1
`;

const DELETE_THREAD = `
purge()
return 1
`;

/**
 * ARGV: now, keepLast. Drops all but the newest checkpoints of every namespace with their writes.
 * Returns {found(0|1), n kept, (ns, value) × n kept, then (blob field, base or '')…}.
 */
const PRUNE_CHECKPOINTS = `
if not open(tonumber(ARGV[1])) then return {0} end
local keep = tonumber(ARGV[2])
local kept = {}
for _, ns in ipairs(redis.call('SMEMBERS', base .. ':n')) do
  local idx = base .. ':i:' .. ns
  for _, id in ipairs(redis.call('ZREVRANGE', idx, keep, -1)) do
    redis.call('ZREM', idx, id)
    redis.call('HDEL', base .. ':c', ns .. '\\0' .. id)
    redis.call('HDEL', base .. ':w', ns .. '\\0' .. id)
  end
  for _, id in ipairs(redis.call('ZRANGE', idx, 0, -1)) do
    kept[#kept + 1] = ns
    kept[#kept + 1] = redis.call('HGET', base .. ':c', ns .. '\\0' .. id)
  end
end
local out = {1, #kept / 2}
for _, v in ipairs(kept) do out[#out + 1] = v end
local b = redis.call('HGETALL', base .. ':b')
for k = 1, #b, 2 do
  local v = b[k + 1]
  local p = string.find(v, '\\0', 18, true)
  out[#out + 1] = b[k]
  out[#out + 1] = (blob_kind(v) == 'd' and p) and string.sub(v, 18, p - 1) or ''
end
return out
`;

/** ARGV: blob fields to delete. */
const DELETE_BLOBS = `
return redis.call('HDEL', base .. ':b', unpack(ARGV))
`;

/** Drops the thread's shared bodies that no blob or write refers to any more. Returns how many. */
const PRUNE_BODIES = `
local used = {}
for _, v in ipairs(redis.call('HVALS', base .. ':b')) do
  local p = string.find(v, '\\0', 18, true)
  local _, shared = blob_kind(v)
  if shared and p then used[string.sub(v, p + 1)] = true end
end
for _, list in ipairs(redis.call('HVALS', base .. ':w')) do
  for _, w in ipairs(cjson.decode(list)) do if type(w[5]) == 'string' then used[w[5]] = true end end
end
local n = 0
for _, ref in ipairs(redis.call('HKEYS', base .. ':v')) do
  if not used[ref] then redis.call('HDEL', base .. ':v', ref); n = n + 1 end
end
return n
`;

/** ARGV: now. Bytes of serialized bodies (the MemorySaver measure). */
const STORED_BYTES = `
if not open(tonumber(ARGV[1])) then return 0 end
local bytes = 0
for _, v in ipairs(redis.call('HVALS', base .. ':c')) do bytes = bytes + #v - 16 end
for _, v in ipairs(redis.call('HVALS', base .. ':b')) do bytes = bytes + #v - (string.find(v, '\\0', 18, true) or #v) end
for _, v in ipairs(redis.call('HVALS', base .. ':w')) do
  for _, w in ipairs(cjson.decode(v)) do bytes = bytes + #w[4] end
end
for _, v in ipairs(redis.call('HVALS', base .. ':v')) do bytes = bytes + #v end
return bytes
`;

/** A Lua script run by EVALSHA, loaded on first use (and again after a SCRIPT FLUSH or failover). */
export class LuaScript {
  readonly #lua: string;
  readonly #sha: string;

  constructor(body: string) {
    this.#lua = PRELUDE + body;
    this.#sha = createHash("sha1").update(this.#lua).digest("hex");
  }

  async run(redis: Redis, key: string, args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(this.#lua, 1, key, ...args);
    }
  }
}

/** @internal */
export const SCRIPTS = {
  put: new LuaScript(PUT),
  putWrites: new LuaScript(PUT_WRITES),
  head: new LuaScript(HEAD),
  page: new LuaScript(PAGE),
  values: new LuaScript(VALUES),
  readLease: new LuaScript(READ_LEASE),
  casLease: new LuaScript(CAS_LEASE),
  casLeaseHead: new LuaScript(CAS_LEASE_HEAD),
  commit: new LuaScript(COMMIT),
  renewLease: new LuaScript(RENEW_LEASE),
  releaseLease: new LuaScript(RELEASE_LEASE),
  setTtl: new LuaScript(SET_TTL),
  deleteThread: new LuaScript(DELETE_THREAD),
  pruneCheckpoints: new LuaScript(PRUNE_CHECKPOINTS),
  deleteBlobs: new LuaScript(DELETE_BLOBS),
  pruneBodies: new LuaScript(PRUNE_BODIES),
  storedBytes: new LuaScript(STORED_BYTES),
};
