package catalog

import (
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// RenewablePause is row 17's setup for any renewable lock: two clients,
// holds of two TTLs (the watchdog renews several times per hold), holders
// that trust the watchdog to tell them of a loss (TrustLostSignal, as code
// on a watchdog lock does), and the first holder paused for 2.5 x TTL
// right after it acquired: past the end of its hold, so its write is
// already on its way when it resumes. Under a real pause (PauseProcess)
// the watchdog freezes with the holder: no renewal, no word of the loss;
// the lease runs out, the other client takes the lock and reads, and the
// holder's write lands when it resumes, in the middle of the other's
// critical section: both write the same value, one increment is lost.
// Under the links' freeze (PauseLinks) an in-process watchdog keeps
// running, sees its renewal time out a fifth of a second into the pause
// and tells the holder, which then never writes.
func RenewablePause(lock, pauseModel string) config.Config {
	ttl := 500 * ms
	c := config.Config{Lock: lock, Workload: "counter", Nodes: 1, Clients: 2, TTL: ttl, PauseModel: pauseModel,
		ClientsStartAt: 300 * ms,
		Workloads:      workloads.Options{HoldMin: 2 * ttl, HoldMax: 2 * ttl, TrustLostSignal: true}}
	// 5 ms after the clients start: the first acquire has just completed
	// (a holder that acquired within TTL/20 is taken at once).
	return scripted(c, 2*time.Second, step(305*ms, nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, 5*ttl/2))
}

// processRows are the rows whose clients are processes (the Python
// clients of clients/python), paused for real with SIGSTOP.
func processRows() []Row {
	ttl := 500 * ms
	invalid := checker.Invalid

	// Row 18: redis-py's Lock, no renewal, row 4's pauses: the holder's
	// write, sent as the pause starts, lands two TTLs later, after the
	// next holder's read.
	redispy := config.Config{Lock: "py-redispy", Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl}
	redispy = scripted(redispy, 2*time.Second, holderPauses(ttl, 2)...)

	// Row 19: row 13 with the seed's queue in Python: the waiter killed
	// (SIGKILL of its process) stays in the queue and blocks it.
	fair := config.Config{Lock: "py-seed-fair", Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl}
	fair = scripted(fair, 4*time.Second, step(1500*ms, nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetWaiter}}, ttl))

	return []Row{
		{N: 17, Lock: "py-seed-renewable", Fault: "real process pause (SIGSTOP) of the holder > TTL, no fencing", Expected: "invalid (the renewal thread froze too)", Quick: true,
			Config: RenewablePause("py-seed-renewable", config.PauseProcess), Expect: []Expectation{verdict(invalid), checkerIs("resource", invalid)}},
		{N: 18, Lock: "py-redispy", Fault: "process pause > TTL, no fencing", Expected: "invalid (resource)", Quick: true,
			Config: redispy, Expect: []Expectation{verdict(invalid), checkerIs("resource", invalid)}},
		{N: 19, Lock: "py-seed-fair", Fault: "waiter crashes (SIGKILL) in queue", Expected: "liveness failure", Quick: true,
			Config: fair, Expect: []Expectation{checkerIs("liveness", invalid)}},
	}
}
