<?php
// lockstorm adapter for malkusch/lock 2.2.1's PHPRedisMutex (Debian's
// php-malkusch-lock, php-redis), on every node of LOCKSTORM_NODES: one
// node is a single-instance lock, several are its Redlock-style majority
// mode. It speaks docs/client-protocol.md; README.md says how
// synchronized() maps onto acquire and release.
//
//   php adapter.php           the client (LOCKSTORM_* environment)
//   php adapter.php --check   exit 1 with a one-line reason when php-redis
//                             or malkusch/lock 2.2.x is missing
declare(strict_types=1);

if (in_array('--check', $argv, true)) {
    if (!extension_loaded('redis')) {
        fwrite(STDOUT, "php-redis (the redis extension) is not loaded\n");
        exit(1);
    }
    if (!stream_resolve_include_path('Malkusch/Lock/autoload.php')) {
        fwrite(STDOUT, "php-malkusch-lock (Malkusch/Lock/autoload.php) is not on the include_path\n");
        exit(1);
    }
    require_once 'Malkusch/Lock/autoload.php';
    if (!class_exists('malkusch\lock\mutex\PHPRedisMutex')) {
        fwrite(STDOUT, "malkusch/lock has no PHPRedisMutex\n");
        exit(1);
    }
    $dpkg = @shell_exec("dpkg-query -W -f='\${Version}' php-malkusch-lock 2>/dev/null");
    if (is_string($dpkg) && $dpkg !== '' && strpos($dpkg, '2.2.1') !== 0) {
        fwrite(STDOUT, "php-malkusch-lock is $dpkg, the entry pins 2.2.1\n");
        exit(1);
    }
    exit(0);
}

require_once 'Malkusch/Lock/autoload.php';

use malkusch\lock\exception\ExecutionOutsideLockException;
use malkusch\lock\exception\LockAcquireException;
use malkusch\lock\exception\LockReleaseException;
use malkusch\lock\exception\TimeoutException;
use malkusch\lock\mutex\PHPRedisMutex;
use malkusch\lock\mutex\RedisMutex;
use malkusch\lock\mutex\SpinlockMutex;

function logline(string $msg): void
{
    fwrite(STDERR, $msg . "\n");
}

function usage_exit(string $msg): void
{
    fwrite(STDERR, "malkusch adapter: $msg\n");
    exit(2);
}

// ---- environment -----------------------------------------------------------

function env_ms(string $name, bool $required): ?int
{
    $v = getenv($name);
    if ($v === false || $v === '') {
        if ($required) {
            usage_exit("$name is not set");
        }
        return null;
    }
    if (!ctype_digit($v) || (int) $v <= 0) {
        usage_exit("$name=" . var_export($v, true) . " is not a positive number of milliseconds");
    }
    return (int) $v;
}

$nodes = [];
foreach (explode(',', (string) getenv('LOCKSTORM_NODES')) as $a) {
    $a = trim($a);
    if ($a === '') {
        continue;
    }
    $i = strrpos($a, ':');
    $port = $i === false ? '' : substr($a, $i + 1);
    if ($i === false || $i === 0 || !ctype_digit($port) || (int) $port <= 0 || (int) $port > 65535) {
        usage_exit("LOCKSTORM_NODES: '$a' is not host:port");
    }
    $nodes[] = [trim(substr($a, 0, $i), '[]'), (int) $port];
}
if (!$nodes) {
    usage_exit('LOCKSTORM_NODES is not set (host:port,... one per node)');
}
$slot = (string) getenv('LOCKSTORM_SLOT');
if (!ctype_digit($slot)) {
    usage_exit("LOCKSTORM_SLOT='$slot' is not a slot number");
}
$ttlMs = env_ms('LOCKSTORM_TTL_MS', true);
// PHPRedisMutex takes $timeout in whole seconds (an int; this file has
// strict_types, and a float would be truncated anyway) and sets the key
// with EX $timeout + 1: the harness's TTL must be that expiry exactly.
if ($ttlMs % 1000 !== 0 || $ttlMs < 2000) {
    usage_exit("LOCKSTORM_TTL_MS=$ttlMs: malkusch/lock's key expiry is timeout+1 whole seconds, so the TTL must be a whole number of seconds, at least 2s");
}
$timeoutS = intdiv($ttlMs, 1000) - 1; // the library's timeout: its acquire wait and its validity
$nodeTimeoutMs = env_ms('LOCKSTORM_NODE_TIMEOUT_MS', false) ?? max(intdiv($ttlMs, 10), 50);
$nodeTimeoutMs = max($nodeTimeoutMs, 20); // phpredis's socket timeouts below ~20 ms are not sane
$names = getenv('LOCKSTORM_NODE_NAMES');
$names = ($names === false || $names === '') ? [] : explode(',', $names);
if (!$names) {
    foreach ($nodes as $i => $_) {
        $names[] = 'n' . ($i + 1);
    }
}
if (count($names) !== count($nodes)) {
    usage_exit('LOCKSTORM_NODE_NAMES names ' . count($names) . ' nodes, LOCKSTORM_NODES has ' . count($nodes));
}

// ---- connections -------------------------------------------------------------

/**
 * One phpredis connection per node. The library wants connected Redis
 * objects and never reconnects; a phpredis object whose connection broke
 * stays broken ("Redis server went away"). So a node whose last command
 * failed is reconnected (a fresh socket: no late reply of the failed
 * command can be read) just before its next command, inside the library's
 * timed acquire or release.
 */
final class Nodes
{
    /** @var Redis[] */
    public $redis = [];
    /** @var bool[] */
    public $dirty = [];
    /** @var int[] spl_object_id => node index */
    public $index = [];
    private $addrs;
    private $timeoutS;

    public function __construct(array $addrs, int $timeoutMs)
    {
        $this->addrs = $addrs;
        $this->timeoutS = $timeoutMs / 1000;
        foreach ($addrs as $i => $_) {
            $r = new Redis();
            $this->redis[$i] = $r;
            $this->index[spl_object_id($r)] = $i;
            $this->dirty[$i] = true;
            $this->ready($i);
        }
    }

    /** ready reconnects node i if its connection may be broken. */
    public function ready(int $i): void
    {
        if (!$this->dirty[$i]) {
            return;
        }
        [$host, $port] = $this->addrs[$i];
        try {
            $this->redis[$i]->connect($host, $port, $this->timeoutS);
            $this->redis[$i]->setOption(Redis::OPT_READ_TIMEOUT, $this->timeoutS);
            $this->dirty[$i] = false;
        } catch (RedisException $e) {
            // The object stays unconnected: the library's command on it
            // throws, and the library counts the node as errored.
            logline("node $i: connect: " . $e->getMessage());
        }
    }
}

$conns = new Nodes($nodes, $nodeTimeoutMs);

/**
 * PHPRedisMutex, observed: each SET NX EX (add) and each compare-and-delete
 * (evalScript) the library sends is recorded by token and node with its
 * outcome, so the adapter can tell "certainly not held" from "unknown".
 * Both delegate to the library's own methods unchanged.
 */
final class ObservedPHPRedisMutex extends PHPRedisMutex
{
    /** @var array<string, array<int, string>> token => node => ok|no|error|unsent */
    public $set = [];
    /** @var array<string, array<int, string>> token => node => deleted|absent|error|unsent */
    public $del = [];
    private $nodes;

    public function __construct(Nodes $nodes, string $name, int $timeout)
    {
        $this->nodes = $nodes;
        parent::__construct($nodes->redis, $name, $timeout);
    }

    protected function add($redisAPI, string $key, string $value, int $expire): bool
    {
        $i = $this->nodes->index[spl_object_id($redisAPI)];
        $this->nodes->ready($i);
        $unsent = $this->nodes->dirty[$i]; // not connected: the command cannot go out
        try {
            $ok = parent::add($redisAPI, $key, $value, $expire);
        } catch (LockAcquireException $e) {
            $this->nodes->dirty[$i] = true;
            $this->set[$value][$i] = $unsent ? 'unsent' : 'error';
            logline("node $i: SET NX EX $expire: " . ($e->getPrevious() ? $e->getPrevious()->getMessage() : $e->getMessage()));
            throw $e;
        }
        $this->set[$value][$i] = $ok ? 'ok' : 'no';
        return $ok;
    }

    protected function evalScript($redis, string $script, int $numkeys, array $arguments)
    {
        $i = $this->nodes->index[spl_object_id($redis)];
        $token = (string) $arguments[1];
        $this->nodes->ready($i);
        $unsent = $this->nodes->dirty[$i];
        try {
            $r = parent::evalScript($redis, $script, $numkeys, $arguments);
        } catch (LockReleaseException $e) {
            $this->nodes->dirty[$i] = true;
            $this->del[$token][$i] = $unsent ? 'unsent' : 'error';
            logline("node $i: compare-and-delete: " . ($e->getPrevious() ? $e->getPrevious()->getMessage() : $e->getMessage()));
            throw $e;
        }
        $this->del[$token][$i] = $r ? 'deleted' : 'absent';
        return $r;
    }

    /** The library's own random value, stored under the key (RedisMutex::$token). */
    public function token(): string
    {
        return (string) \Closure::bind(function () {
            return $this->token;
        }, $this, RedisMutex::class)();
    }

    /** When the library's winning attempt started (SpinlockMutex::$acquired, microtime). */
    public function acquiredAt(): float
    {
        return (float) \Closure::bind(function () {
            return $this->acquired;
        }, $this, SpinlockMutex::class)();
    }

    /**
     * Whether some failed attempt may have left its token on a majority of
     * the nodes: a SET that answered ok or timed out (it may still land)
     * and was not certainly undone by the library's compare-and-delete.
     */
    public function mayHoldMajority(int $n): bool
    {
        foreach ($this->set as $token => $nodes) {
            $maybe = 0;
            foreach ($nodes as $i => $s) {
                $d = $this->del[$token][$i] ?? null;
                if (($s === 'ok' && $d !== 'deleted' && $d !== 'absent') || ($s === 'error' && $d !== 'deleted')) {
                    $maybe++;
                }
            }
            if ($maybe > $n / 2) {
                return true;
            }
        }
        return false;
    }
}

// ---- the line protocol ---------------------------------------------------------

function answer(int $id, array $a): void
{
    fwrite(STDOUT, json_encode(['id' => $id] + $a, JSON_UNESCAPED_SLASHES) . "\n");
    fflush(STDOUT);
}

/** read_request returns the next request, null at the end of stdin. */
function read_request(): ?array
{
    while (($line = fgets(STDIN)) !== false) {
        $line = trim($line);
        if ($line === '') {
            continue;
        }
        $q = json_decode($line, true);
        if (!is_array($q) || !is_int($q['id'] ?? null) || $q['id'] <= 0 || !in_array($q['op'] ?? null, ['acquire', 'release', 'extend'], true)
            || !is_string($q['key'] ?? null) || $q['key'] === '') {
            logline('malformed request: ' . $line);
            if (is_array($q) && is_int($q['id'] ?? null)) {
                answer($q['id'], ['type' => 'fail', 'error' => 'malformed request: ' . $line]);
            }
            continue;
        }
        return $q;
    }
    return null;
}

/** not_holding answers a request that cannot act on a lease this process holds. */
function not_holding(array $q, ?string $heldKey, ?string $heldToken): void
{
    switch ($q['op']) {
        case 'extend':
            // The text lockimpl.ErrUnsupported: the harness reads it as "cannot extend".
            answer($q['id'], ['type' => 'fail', 'error' => 'lockimpl: operation not supported: extend (malkusch/lock has no extend)']);
            return;
        case 'release':
            answer($q['id'], ['type' => 'fail', 'error' => 'not held: this client holds no lease with that key and token']);
            return;
        default:
            answer($q['id'], ['type' => 'fail', 'error' => "not obtained: this client holds '$heldKey' ($heldToken) and runs one synchronized() at a time"]);
    }
}

/**
 * acquire runs one $mutex->synchronized() per library wait (its timeout,
 * in seconds), again while timeout_ms leaves room for a whole one. The
 * callable answers the acquire, then serves this process's requests until
 * the release of its token (or the end of stdin) and returns: the library
 * releases. Returns false at the end of stdin.
 */
function acquire(array $q): bool
{
    global $conns, $timeoutS, $ttlMs, $names;
    $n = count($conns->redis);
    if (isset($q['ttl_ms']) && $q['ttl_ms'] !== $ttlMs) {
        answer($q['id'], ['type' => 'fail', 'error' => "ttl_ms {$q['ttl_ms']} differs from LOCKSTORM_TTL_MS $ttlMs"]);
        return true;
    }
    $timeoutMs = is_int($q['timeout_ms'] ?? null) ? $q['timeout_ms'] : 1000;
    $deadline = hrtime(true) + $timeoutMs * 1e6;
    $key = $q['key'];
    $mutexes = [];
    $releaseId = null;
    $eof = false;
    while (true) {
        $mutex = new ObservedPHPRedisMutex($conns, $key, $timeoutS);
        $mutexes[] = $mutex;
        $entered = false;
        try {
            $mutex->synchronized(function () use ($mutex, $q, $key, $timeoutS, $names, &$entered, &$releaseId, &$eof, $conns) {
                $entered = true;
                $token = $mutex->token();
                $mono = hrtime(true);
                $validity = ($mutex->acquiredAt() + $timeoutS - microtime(true)) * 1000;
                $granted = [];
                foreach ($mutex->set[$token] ?? [] as $i => $s) {
                    if ($s === 'ok') {
                        $granted[] = $names[$i];
                    }
                }
                answer($q['id'], ['type' => 'ok', 'token' => $token, 'fence' => 0, 'validity_ms' => max((int) floor($validity), 0), 'mono_ns' => $mono, 'nodes' => $granted]);
                while (($r = read_request()) !== null) {
                    if ($r['op'] === 'release' && $r['key'] === $key && ($r['token'] ?? null) === $token) {
                        $releaseId = $r['id'];
                        return;
                    }
                    not_holding($r, $key, $token);
                }
                $eof = true; // the harness closed stdin: release and exit
            });
        } catch (ExecutionOutsideLockException $e) {
            // The library's own verdict: the code ran past its timeout, the
            // lock was no longer held, and it sent no release.
            release_answer($releaseId, 'fail', 'not held: ExecutionOutsideLockException: ' . $e->getMessage());
            return !$eof;
        } catch (LockReleaseException $e) {
            if (!$entered) {
                throw $e; // not from the library's unlock(): cannot happen
            }
            // released on no majority: not held when a majority certainly lacked the token
            $token = $mutex->token();
            $absent = count(array_filter($mutex->del[$token] ?? [], function ($d) {
                return $d === 'absent';
            }));
            if ($absent > $n / 2) {
                release_answer($releaseId, 'fail', 'not held: LockReleaseException: ' . $e->getMessage() . " (token absent on $absent of $n nodes)");
            } else {
                release_answer($releaseId, 'info', 'LockReleaseException: ' . $e->getMessage() . ' (' . json_encode($mutex->del[$token] ?? []) . ')');
            }
            return !$eof;
        } catch (TimeoutException $e) {
            // The library's loop ran out after only clean refusals (or failed
            // rounds it rolled back): not obtained, unless a round may have
            // left its token on a majority. Another wait if timeout_ms allows.
            if (hrtime(true) + $timeoutS * 1e9 <= $deadline) {
                continue;
            }
            acquire_failed($q, $mutexes, $n, 'TimeoutException: ' . $e->getMessage());
            return true;
        } catch (LockAcquireException $e) {
            // Too many nodes errored (REDIS_NOT_ENOUGH_SERVERS).
            acquire_failed($q, $mutexes, $n, 'LockAcquireException: ' . $e->getMessage());
            return true;
        } catch (Throwable $e) {
            $what = get_class($e) . ': ' . $e->getMessage();
            if ($entered) {
                release_answer($releaseId, 'info', $what);
                return !$eof;
            }
            answer($q['id'], ['type' => 'info', 'error' => $what]);
            return true;
        }
        release_answer($releaseId, 'ok', '');
        return !$eof;
    }
}

function acquire_failed(array $q, array $mutexes, int $n, string $why): void
{
    foreach ($mutexes as $m) {
        if ($m->mayHoldMajority($n)) {
            answer($q['id'], ['type' => 'info', 'error' => "$why; a SET that timed out or was not rolled back may hold a majority"]);
            return;
        }
    }
    answer($q['id'], ['type' => 'fail', 'error' => "not obtained: $why"]);
}

function release_answer(?int $id, string $type, string $error): void
{
    if ($id === null) {
        logline("released at the end of stdin: $type $error");
        return;
    }
    answer($id, $type === 'ok' ? ['type' => 'ok'] : ['type' => $type, 'error' => $error]);
}

while (($q = read_request()) !== null) {
    if ($q['op'] !== 'acquire') {
        not_holding($q, null, null);
        continue;
    }
    if (!acquire($q)) {
        break;
    }
}
