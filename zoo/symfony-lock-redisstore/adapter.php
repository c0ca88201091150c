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

/** Connections: one phpredis object per node, reconnected when broken. */
final class Conns
{
    /** @var Redis[] */
    public $redis = [];
    private $addrs;
    private $timeoutS;

    public function __construct(array $addrs, float $timeoutS)
    {
        $this->addrs = $addrs;
        $this->timeoutS = $timeoutS;
        foreach ($addrs as $i => $_) {
            $this->redis[$i] = new Redis();
        }
        $this->ready();
    }

    /** ready connects every node whose connection is closed or broken. */
    public function ready(): void
    {
        foreach ($this->redis as $i => $r) {
            if ($r->isConnected()) {
                continue;
            }
            [$host, $port] = $this->addrs[$i];
            try {
                $r->connect($host, $port, $this->timeoutS);
                $r->setOption(Redis::OPT_READ_TIMEOUT, $this->timeoutS);
            } catch (RedisException $e) {
                lockstorm_log("node $i: connect: " . $e->getMessage());
            }
        }
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
        $store = $combined ? new CombinedStore($stores, new ConsensusStrategy()) : $stores[0];
        $this->factory = new LockFactory($store);
    }

    private function validity(\Symfony\Component\Lock\LockInterface $lock): int
    {
        $rem = $lock->getRemainingLifetime();
        return $rem === null ? (int) ($this->ttlS * 1000) : max(0, (int) floor($rem * 1000));
    }

    public function acquire(string $name, int $ttlMs, int $timeoutMs): array
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

    /** extend is Lock::refresh(), which the docs recommend for long tasks. */
    public function extend(string $name, string $token, int $timeoutMs): array
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
     * release is Lock::release(). It says nothing of whether the lock was
     * still held (the store's delete ignores a token it does not find):
     * when the lock's own lifetime had run out before the call, the
     * adapter answers fail (not held) after releasing, as the library's
     * own state says; else ok.
     */
    public function release(string $name, string $token, int $timeoutMs): array
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
