<?php
// Symfony Lock 5.4 CombinedStore (ConsensusStrategy) over three RedisStores
// on phpredis with a 50 ms read timeout: after some replies come late, a
// client is granted the lock while another holds it on every node.
//
//   for p in 7101 7102 7103; do redis-server --port $p --save '' --daemonize yes; done
//   php combined-two-holders.php
//
// Each round: some nodes answer slowly (a busy script for 60-160 ms, as
// under load or a short network stall) while client A takes and releases
// the lock; CombinedStore counts each timed-out store as failed and goes
// on, and phpredis keeps those connections, now one reply behind. Then B
// takes the lock (5 s TTL) on quick nodes, and A tries three times. Prints
// the round in which A was granted the lock while B's token is on all
// three nodes (Debian 12, phpredis 5.3.7, Redis 7.0.15: in rounds 4 to 18,
// in each of 6 runs).
require_once 'Symfony/Component/Lock/autoload.php';

use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\CombinedStore;
use Symfony\Component\Lock\Store\RedisStore;
use Symfony\Component\Lock\Strategy\ConsensusStrategy;

$ports = [7101, 7102, 7103];

function factory(array $ports): LockFactory
{
    $stores = [];
    foreach ($ports as $p) {
        $r = new Redis();
        $r->connect('127.0.0.1', $p, 0.05);
        $r->setOption(Redis::OPT_READ_TIMEOUT, 0.05);
        $stores[] = new RedisStore($r);
    }
    return new LockFactory(new CombinedStore($stores, new ConsensusStrategy()));
}

function stall(int $port, int $ms): void
{
    exec("redis-cli -p $port eval \"local t=redis.call('TIME') local s=t[1]*1000000+t[2] while true do local u=redis.call('TIME') if u[1]*1000000+u[2]-s > {$ms}000 then break end end\" 0 >/dev/null 2>&1 &");
}

mt_srand(1);
$a = factory($ports);
$b = factory($ports);
for ($round = 1; $round <= 40; $round++) {
    foreach ($ports as $p) {
        if (mt_rand(0, 1)) {
            stall($p, mt_rand(60, 160));
        }
    }
    usleep(3000);
    try {
        $la = $a->createLock('lockstorm', 0.5, false);
        if ($la->acquire(false)) {
            $la->release();
        }
    } catch (Exception $e) {
    }
    usleep(250000);
    $lb = $b->createLock('lockstorm', 5, false);
    if (!$lb->acquire(false)) {
        usleep(600000);
        continue;
    }
    for ($i = 0; $i < 3; $i++) {
        try {
            $la = $a->createLock('lockstorm', 0.5, false);
            $got = $la->acquire(false);
        } catch (Exception $e) {
            $got = false;
        }
        if ($got) {
            echo "round $round: A was granted the lock while B holds it\n";
            foreach ($ports as $p) {
                echo "  node $p holds: ";
                system("redis-cli -p $p zrange lockstorm 0 -1 | tr '\\n' ' '");
                echo "\n";
            }
            echo '  B isAcquired(): ' . var_export($lb->isAcquired(), true) . "\n";
            exit(1);
        }
    }
    try {
        $lb->release();
    } catch (Exception $e) {
    }
}
echo "no two holders in 40 rounds\n";
