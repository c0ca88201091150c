<?php
// phpredis 5.3.7: after a read timeout the connection stays open, and the
// next command on it reads the reply of the command that timed out.
//
//   redis-server --port 7101 --save '' --daemonize yes
//   php phpredis-desync.php [port]
//
// Prints, on phpredis 5.3.7 (Debian 12):
//   exception: socket error on read socket
//   isConnected() after the timeout: true
//   GET a -> 'SLOW'   (the timed-out EVAL's reply)
//   GET b -> 'A'      (GET a's reply)
$port = (int) ($argv[1] ?? 7101);
$r = new Redis();
$r->connect('127.0.0.1', $port, 0.05);
$r->setOption(Redis::OPT_READ_TIMEOUT, 0.05); // 50 ms
$r->set('a', 'A');
$r->set('b', 'B');
$slow = "local t = redis.call('TIME') local s = t[1] * 1000000 + t[2]
    while true do local u = redis.call('TIME') if u[1] * 1000000 + u[2] - s > 100000 then break end end
    return 'SLOW'"; // answers after 100 ms
try {
    $r->eval($slow, [], 0);
} catch (RedisException $e) {
    echo 'exception: ' . $e->getMessage() . "\n";
}
echo 'isConnected() after the timeout: ' . var_export($r->isConnected(), true) . "\n";
usleep(200000);
echo 'GET a -> ' . var_export($r->get('a'), true) . "\n";
echo 'GET b -> ' . var_export($r->get('b'), true) . "\n";
echo 'phpredis ' . phpversion('redis') . "\n";
