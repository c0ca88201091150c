<?php
// lockstorm's client line protocol (docs/client-protocol.md) for PHP zoo
// entries: the environment, and a loop that reads one request per line
// from stdin and writes one answer per line to stdout. An entry's adapter
// gives serve() an object with acquire, release and extend methods; each
// returns an answer array (ok(...), fail(...), info(...)).
declare(strict_types=1);

function lockstorm_log(string $msg): void
{
    fwrite(STDERR, $msg . "\n");
}

function lockstorm_usage_exit(string $who, string $msg): void
{
    fwrite(STDERR, "$who: $msg\n");
    exit(2);
}

/** env_ms is a LOCKSTORM_* variable in milliseconds, or null when unset. */
function lockstorm_env_ms(string $who, string $name, bool $required): ?int
{
    $v = getenv($name);
    if ($v === false || $v === '') {
        if ($required) {
            lockstorm_usage_exit($who, "$name is not set");
        }
        return null;
    }
    if (!ctype_digit($v) || (int) $v <= 0) {
        lockstorm_usage_exit($who, "$name=" . var_export($v, true) . " is not a positive number of milliseconds");
    }
    return (int) $v;
}

/** lockstorm_nodes is LOCKSTORM_NODES as [[host, port], ...]. */
function lockstorm_nodes(string $who): array
{
    $nodes = [];
    foreach (explode(',', (string) getenv('LOCKSTORM_NODES')) as $a) {
        $a = trim($a);
        if ($a === '') {
            continue;
        }
        $i = strrpos($a, ':');
        $port = $i === false ? '' : substr($a, $i + 1);
        if ($i === false || $i === 0 || !ctype_digit($port) || (int) $port <= 0 || (int) $port > 65535) {
            lockstorm_usage_exit($who, "LOCKSTORM_NODES: '$a' is not host:port");
        }
        $nodes[] = [trim(substr($a, 0, $i), '[]'), (int) $port];
    }
    if (!$nodes) {
        lockstorm_usage_exit($who, 'LOCKSTORM_NODES is not set (host:port,... one per node)');
    }
    return $nodes;
}

function lockstorm_now(): float
{
    return hrtime(true) / 1e9;
}

function ok(array $fields = []): array
{
    return ['type' => 'ok'] + $fields;
}

function fail(string $error): array
{
    return ['type' => 'fail', 'error' => $error];
}

function info(string $error): array
{
    return ['type' => 'info', 'error' => $error];
}

/**
 * lockstorm_serve answers every request line on stdin with $adapter's
 * acquire(key, ttl_ms, timeout_ms), release(key, token, timeout_ms) or
 * extend(key, token, timeout_ms), until stdin ends. A line it cannot read
 * is answered fail when its id can be read, and logged.
 */
function lockstorm_serve($adapter): void
{
    while (($line = fgets(STDIN)) !== false) {
        $line = trim($line);
        if ($line === '') {
            continue;
        }
        $req = json_decode($line, true);
        $id = is_array($req) && isset($req['id']) && is_int($req['id']) ? $req['id'] : null;
        if ($id === null || !isset($req['op'], $req['key'])) {
            lockstorm_log("malformed request: $line");
            if ($id !== null) {
                lockstorm_answer($id, fail('malformed request'));
            }
            continue;
        }
        $timeout = (int) ($req['timeout_ms'] ?? 1000);
        try {
            switch ($req['op']) {
                case 'acquire':
                    $a = $adapter->acquire((string) $req['key'], (int) ($req['ttl_ms'] ?? 0), $timeout);
                    break;
                case 'release':
                    $a = $adapter->release((string) $req['key'], (string) ($req['token'] ?? ''), $timeout);
                    break;
                case 'extend':
                    $a = $adapter->extend((string) $req['key'], (string) ($req['token'] ?? ''), $timeout);
                    break;
                default:
                    $a = fail('unknown op ' . $req['op']);
            }
        } catch (\Throwable $e) {
            // Nothing the adapter classified: the outcome is unknown.
            $msg = get_class($e) . ': ' . $e->getMessage();
            for ($p = $e->getPrevious(); $p !== null; $p = $p->getPrevious()) {
                $msg .= ' <- ' . get_class($p) . ': ' . $p->getMessage();
            }
            $a = info($msg);
        }
        lockstorm_answer($id, $a);
    }
}

function lockstorm_answer(int $id, array $a): void
{
    fwrite(STDOUT, json_encode(['id' => $id] + $a, JSON_UNESCAPED_SLASHES) . "\n");
    fflush(STDOUT);
}
