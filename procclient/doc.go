// Package procclient is the harness side of a process client: a lock
// client that runs as a separate process and speaks the JSON-line
// protocol of package protocol (docs/client-protocol.md) on its stdin and
// stdout, like a Maelstrom node. A *Client is a lockimpl.Locker and
// lockimpl.Extender, so a client slot of the harness runs a process client
// exactly as it runs an in-process lock: the workloads, the history and
// the checkers do not know the difference.
//
// # Process
//
// Start runs Config.Argv in its own process group (on Linux it also dies
// with the harness), with LOCKSTORM_* variables in its environment. One
// goroutine reads its stdout (protocol.Conn), one its stderr (each line to
// Config.Log, prefixed "stderr: "), one waits for its exit. Pause and
// Resume stop and continue the whole group (SIGSTOP, SIGCONT) and drive
// Config.Clock, the process's running-time clock; Kill sends SIGKILL to
// the group; Close closes stdin and gives the process 2 s to exit before
// killing the group. Kill and Close reap the process; after Close no
// process of the group and no goroutine is left.
//
// # Requests and outcomes
//
// Each operation is one request with a fresh id. Its timeout_ms is the
// time left of the ctx (pauseclock.Remaining: running time for a ctx of a
// pauseclock.Clock, else the time to its deadline), at least 1 ms, or
// absent when ctx has no deadline. The answer maps to lockimpl's errors,
// so the workloads classify it as they classify an in-process lock's:
//
//	ok    nil (an acquire returns a lease)
//	fail  acquire: wraps lockimpl.ErrNotObtained
//	      release, extend: wraps lockimpl.ErrNotHeld
//	      (an extend the client says it cannot do: lockimpl.ErrUnsupported)
//	info  wraps lockimpl.ErrOutcomeUnknown, neither of the above
//
// An unknown outcome never becomes fail: every error that is not a fail
// answer (a cancelled ctx, a broken client) wraps ErrOutcomeUnknown.
//
// # Validity
//
// A client reports validity_ms, the validity left when it answered. The
// harness reads the answer later, and the client may be wrong or lying,
// so a lease's validity is
//
//	min(receipt + validity_ms, send + TTL − allowance)
//
// on the monotonic clock, where allowance is lease.Allowance(TTL,
// lease.FixedDrift, lease.DriftFactor) and send is the latest time the
// command that took or extended the lease can have been sent: a client can
// never claim more than the server could grant. For an extend, one
// attempt, send is taken before the request is written. An acquire
// retries until it gets the lock, so the command that got it may have
// gone out at any time up to the answer: its send is the receipt (the
// request's own send time would cut a lease won after a long wait short,
// to before it was won). A renewed
// event (the client's watchdog renewed by itself) moves it to
// min(receipt + validity_ms, receipt + TTL − allowance); a lost event
// marks the lease lost (Done closes, Err wraps lockimpl.ErrLost with the
// client's reason). Events for a token of no live lease (say, one just
// released) are logged and ignored.
//
// # Waiting, timeouts, pauses
//
// A caller whose ctx is cancelled returns at once, unknown. A caller
// whose ctx's timeout passed waits on, since the client must answer
// within its timeout_ms plus Config.Grace of running time after the
// request was sent, counted on Config.Clock: the time the process spent
// stopped (Pause) does not count, as a stopped process cannot act on a
// request, and the answer read after Resume is the outcome. A client that
// does not answer in that time is "not answering": the Client logs it,
// breaks and kills it. An ok acquire answered after its caller gave up is
// released (nobody else would release it, and a watchdog would keep it).
//
// # Misbehaviour
//
// A malformed line, an answer to an id never sent or answered already, an
// ok acquire without a token, a client that closes its stdout or exits,
// or one not answering: the Client logs one line ("client c1 pid 1234:
// exited with status 1 while 2 requests were in flight"), kills what is
// left of the process group and closes Broken; Err says why and wraps
// ErrBroken. Every request in flight ends unknown, wrapping ErrBroken;
// later operations return such an error at once without writing; leases
// not released are marked lost, as no process renews them any more. The
// harness then starts a new process in the slot (a new Client): a Client
// never restarts itself. Kill and Close also close Broken (without a log
// line, unless Close had to kill).
package procclient
