<?php
// lockstorm adapter for Symfony Lock 5.4 (Debian's php-symfony-lock) on
// phpredis: a RedisStore on one node, or with --combined a CombinedStore
// of one RedisStore per node under the ConsensusStrategy. It speaks
// docs/client-protocol.md (clients/php/lockstorm_protocol.php); README.md
// says how the Lock API maps onto it.
//
//   php adapter.php [--combined]   the client (LOCKSTORM_* environment)
//   php adapter.php --check        exit 1 with a one-line reason when
//                                  php-redis or Symfony Lock 5.4 is missing
declare(strict_types=1);

const WHO = 'symfony-lock adapter';

if (in_array('--check', $argv, true)) {
    if (!extension_loaded('redis')) {
        fwrite(STDOUT, "php-redis (the redis extension) is not loaded\n");
        exit(1);
    }
    if (!stream_resolve_include_path('Symfony/Component/Lock/autoload.php')) {
        fwrite(STDOUT, "php-symfony-lock (Symfony/Component/Lock/autoload.php) is not on the include_path\n");
        exit(1);
    }
    $v = @shell_exec("dpkg-query -W -f='\${Version}' php-symfony-lock 2>/dev/null");
    if (is_string($v) && $v !== '' && strpos($v, '5.4') !== 0) {
        fwrite(STDOUT, "php-symfony-lock is $v, the entry pins 5.4\n");
        exit(1);
    }
    exit(0);
}

require_once __DIR__ . '/../../clients/php/lockstorm_protocol.php';
require_once 'Symfony/Component/Lock/autoload.php';

use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockReleasingException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\CombinedStore;
use Symfony\Component\Lock\Store\RedisStore;
use Symfony\Component\Lock\Strategy\ConsensusStrategy;

$combined = in_array('--combined', $argv, true);
$nodes = lockstorm_nodes(WHO);
$ttlMs = lockstorm_env_ms(WHO, 'LOCKSTORM_TTL_MS', true);
$nodeTimeoutS = max(lockstorm_env_ms(WHO, 'LOCKSTORM_NODE_TIMEOUT_MS', false) ?? intdiv($ttlMs, 10), 20) / 1000;
if (!$combined && count($nodes) !== 1) {
    lockstorm_usage_exit(WHO, 'a RedisStore alone uses one node; give --combined for ' . count($nodes));
}

/**
 * Connections: one phpredis object per node, reconnected after an error.
 * phpredis 5.3.7 keeps a connection open after a read timeout (and
 * isConnected() stays true, even after close()): the next command on it
 * reads the reply of the one that timed out. So a connection is
 * reconnected when the adapter saw an exception, not when it looks closed.
 */
final class Conns
{
    /** @var Redis[] */
    public $redis = [];
    /** @var bool[] node => its connection must be (re)made */
    private $broken = [];
    private $addrs;
    private $timeoutS;

    public function __construct(array $addrs, float $timeoutS)
    {
        $this->addrs = $addrs;
        $this->timeoutS = $timeoutS;
        foreach ($addrs as $i => $_) {
            $this->redis[$i] = new Redis();
            $this->broken[$i] = true;
        }
        $this->ready();
    }

    /** ready connects every node whose connection is unmade or broken. */
    public function ready(): void
    {
        foreach ($this->redis as $i => $r) {
            if (!$this->broken[$i]) {
                continue;
            }
            [$host, $port] = $this->addrs[$i];
            try {
                $r->connect($host, $port, $this->timeoutS); // closes the old stream
                $r->setOption(Redis::OPT_READ_TIMEOUT, $this->timeoutS);
                $this->broken[$i] = false;
            } catch (RedisException $e) {
                lockstorm_log("node $i: connect: " . $e->getMessage());
            }
        }
    }

    /** reset marks every connection broken: the adapter saw an exception. */
    public function reset(): void
    {
        foreach ($this->broken as $i => $_) {
            $this->broken[$i] = true;
        }
    }
}

/**
 * StderrLogger writes the store errors the CombinedStore swallows (other
 * than a store that answered "held by another") to stderr, so that the
 * run's log shows them.
 */
final class StderrLogger extends Psr\Log\AbstractLogger
{
    public function log($level, $message, array $context = []): void
    {
        $e = $context['exception'] ?? null;
        if (!$e instanceof \Throwable || $e instanceof LockConflictedException) {
            return;
        }
        $msg = str_replace('{resource}', (string) ($context['resource'] ?? ''), (string) $message);
        lockstorm_log("CombinedStore $level: $msg" . ': ' . get_class($e) . ' ' . $e->getMessage());
    }
}

final class SymfonyAdapter
{
    private $conns;
    private $factory;
    private $ttlS;
    /** @var array<string, array{0: \Symfony\Component\Lock\LockInterface, 1: Key}> token => lock, key */
    private $held = [];

    public function __construct(Conns $conns, bool $combined, float $ttlS)
    {
        $this->conns = $conns;
        $this->ttlS = $ttlS;
        $stores = [];
        foreach ($conns->redis as $r) {
            $stores[] = new RedisStore($r); // as the docs show: the default initial TTL
        }
        $store = $stores[0];
        if ($combined) {
            // As an application would: the combined store's own handling
            // of a store's error (swallowed), logged to stderr.
            $store = new CombinedStore($stores, new ConsensusStrategy());
            $store->setLogger(new StderrLogger());
        }
        $this->factory = new LockFactory($store);
    }

    private function validity(\Symfony\Component\Lock\LockInterface $lock): int
    {
        $rem = $lock->getRemainingLifetime();
        return $rem === null ? (int) ($this->ttlS * 1000) : max(0, (int) floor($rem * 1000));
    }

    public function acquire(string $name, int $ttlMs, int $timeoutMs): array
    {
        return $this->guarded(function () use ($name, $timeoutMs) {
            return $this->tryAcquire($name, $timeoutMs);
        });
    }

    public function extend(string $name, string $token, int $timeoutMs): array
    {
        return $this->guarded(function () use ($token) {
            return $this->refresh($token);
        });
    }

    public function release(string $name, string $token, int $timeoutMs): array
    {
        return $this->guarded(function () use ($token) {
            return $this->releaseHeld($token);
        });
    }

    /**
     * guarded runs one request; when it throws or answers info (a command
     * failed: its outcome is unknown), the connections are reconnected
     * before the next request (see Conns).
     */
    private function guarded(callable $request): array
    {
        try {
            $a = $request();
        } catch (\Throwable $e) {
            $this->conns->reset();
            throw $e;
        }
        if ($a['type'] === 'info') {
            $this->conns->reset();
        }
        return $a;
    }

    private function tryAcquire(string $name, int $timeoutMs): array
    {
        $deadline = lockstorm_now() + $timeoutMs / 1000;
        while (true) {
            $this->conns->ready();
            $key = new Key($name);
            $lock = $this->factory->createLockFromKey($key, $this->ttlS, false);
            try {
                if ($lock->acquire(false)) {
                    $token = $key->getState(RedisStore::class);
                    $this->held[$token] = [$lock, $key];
                    return ok(['token' => $token, 'mono_ns' => hrtime(true), 'validity_ms' => $this->validity($lock)]);
                }
            } catch (LockExpiredException $e) {
                // Stored, but its lifetime ran out before the call returned;
                // the library tried to release it: it may still be there.
                return info('acquire: ' . $e->getMessage());
            }
            // false: someone else holds it (LockConflictedException inside).
            if (lockstorm_now() + 0.01 >= $deadline) {
                return fail('lock not obtained within timeout_ms');
            }
            usleep(10000);
        }
    }

    /** refresh is Lock::refresh(), which the docs recommend for long tasks. */
    private function refresh(string $token): array
    {
        if (!isset($this->held[$token])) {
            return fail('not held: unknown token');
        }
        [$lock] = $this->held[$token];
        $this->conns->ready();
        try {
            $lock->refresh();
            return ok(['mono_ns' => hrtime(true), 'validity_ms' => $this->validity($lock)]);
        } catch (LockConflictedException $e) {
            return fail('not held: ' . $e->getMessage());
        } catch (LockExpiredException $e) {
            return info('refresh: ' . $e->getMessage());
        }
    }

    /**
     * releaseHeld is Lock::release(). It says nothing of whether the lock was
     * still held (the store's delete ignores a token it does not find):
     * when the lock's own lifetime had run out before the call, the
     * adapter answers fail (not held) after releasing, as the library's
     * own state says; else ok.
     */
    private function releaseHeld(string $token): array
    {
        if (!isset($this->held[$token])) {
            return fail('not held: unknown token');
        }
        [$lock] = $this->held[$token];
        unset($this->held[$token]);
        $expired = $lock->isExpired();
        $this->conns->ready();
        try {
            $lock->release();
        } catch (LockReleasingException $e) {
            return info('release: ' . $e->getMessage() . ($e->getPrevious() ? ': ' . $e->getPrevious()->getMessage() : ''));
        }
        return $expired ? fail('not held: the lock had expired before its release (Lock::isExpired)') : ok();
    }
}

lockstorm_serve(new SymfonyAdapter(new Conns($nodes, $nodeTimeoutS), $combined, $ttlMs / 1000));
