<?php
// lockstorm adapter for Laravel's cache lock, Illuminate\Cache\RedisLock
// (Debian's php-illuminate-cache and php-illuminate-redis 8.83) on a
// phpredis connection (Illuminate\Redis\Connections\PhpRedisConnection),
// without the rest of the framework. It speaks docs/client-protocol.md
// (clients/php/lockstorm_protocol.php); README.md says how block() and
// release() map onto it.
//
//   php adapter.php           the client (LOCKSTORM_* environment)
//   php adapter.php --check   exit 1 with a one-line reason when missing
declare(strict_types=1);

const WHO = 'laravel-cache-lock adapter';

if (in_array('--check', $argv, true)) {
    if (!extension_loaded('redis')) {
        fwrite(STDOUT, "php-redis (the redis extension) is not loaded\n");
        exit(1);
    }
    foreach (['Illuminate/Cache/autoload.php' => 'php-illuminate-cache', 'Illuminate/Redis/autoload.php' => 'php-illuminate-redis'] as $f => $pkg) {
        if (!stream_resolve_include_path($f)) {
            fwrite(STDOUT, "$pkg ($f) is not on the include_path\n");
            exit(1);
        }
    }
    exit(0);
}

require_once __DIR__ . '/../../clients/php/lockstorm_protocol.php';
require_once 'Illuminate/Cache/autoload.php';
require_once 'Illuminate/Redis/autoload.php';

use Illuminate\Cache\RedisLock;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Redis\Connections\PhpRedisConnection;

$nodes = lockstorm_nodes(WHO);
$ttlMs = lockstorm_env_ms(WHO, 'LOCKSTORM_TTL_MS', true);
if ($ttlMs % 1000 !== 0) {
    lockstorm_usage_exit(WHO, "LOCKSTORM_TTL_MS=$ttlMs: a Laravel lock's seconds are whole seconds");
}
$nodeTimeoutS = max(lockstorm_env_ms(WHO, 'LOCKSTORM_NODE_TIMEOUT_MS', false) ?? intdiv($ttlMs, 10), 20) / 1000;
[$host, $port] = $nodes[0];

$connect = function () use ($host, $port, $nodeTimeoutS): Redis {
    $r = new Redis();
    try {
        $r->connect($host, $port, $nodeTimeoutS);
        $r->setOption(Redis::OPT_READ_TIMEOUT, $nodeTimeoutS);
    } catch (RedisException $e) {
        lockstorm_log('connect: ' . $e->getMessage());
    }
    return $r;
};

final class LaravelAdapter
{
    private $conn;
    private $connect;
    private $seconds;
    /** @var bool the connection threw: replace it before the next request */
    private $broken = false;
    /** @var array<string, RedisLock> owner => lock */
    private $held = [];

    public function __construct(callable $connect, int $seconds)
    {
        $this->connect = $connect;
        // The connector reconnects a connection that "went away".
        $this->conn = new PhpRedisConnection($connect(), $connect);
        $this->seconds = $seconds;
    }

    /**
     * ready replaces a broken phpredis connection before a request: one
     * that threw. phpredis 5.3.7 keeps a connection open after a read
     * timeout (isConnected() stays true) and the next command on it reads
     * the reply of the one that timed out, and Laravel's connection
     * reconnects only when the server "went away".
     */
    private function ready(): void
    {
        if ($this->broken) {
            $this->conn = new PhpRedisConnection(($this->connect)(), $this->connect);
            $this->broken = false;
        }
    }

    /** acquire is block(seconds) as the docs show, whole seconds of wait. */
    public function acquire(string $name, int $ttlMs, int $timeoutMs): array
    {
        $this->ready();
        $lock = new RedisLock($this->conn, $name, $this->seconds);
        $start = lockstorm_now();
        try {
            $wait = intdiv($timeoutMs, 1000);
            $got = $wait >= 1 ? $lock->block($wait) : $lock->acquire();
        } catch (LockTimeoutException $e) {
            return fail('lock not obtained: block() timed out');
        } catch (RedisException $e) {
            $this->broken = true;
            return info('acquire: ' . $e->getMessage());
        }
        if (!$got) {
            return fail('lock not obtained');
        }
        $this->held[$lock->owner()] = $lock;
        // The key lives `seconds` from its SET, sent no earlier than start.
        $mono = hrtime(true);
        $validity = (int) floor($this->seconds * 1000 - (lockstorm_now() - $start) * 1000);
        return ok(['token' => $lock->owner(), 'validity_ms' => max(0, $validity), 'mono_ns' => $mono]);
    }

    public function extend(string $name, string $token, int $timeoutMs): array
    {
        return fail('not held: Laravel 8 cache locks cannot be extended (unsupported)');
    }

    /** release answers what release() returned: true ok, false not held. */
    public function release(string $name, string $token, int $timeoutMs): array
    {
        if (!isset($this->held[$token])) {
            return fail('not held: unknown token');
        }
        $lock = $this->held[$token];
        unset($this->held[$token]);
        $this->ready();
        try {
            return $lock->release() ? ok() : fail('not held: release() answered false');
        } catch (RedisException $e) {
            $this->broken = true;
            return info('release: ' . $e->getMessage());
        }
    }
}

lockstorm_serve(new LaravelAdapter($connect, intdiv($ttlMs, 1000)));
