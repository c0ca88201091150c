// Package history holds the record of a lockstorm run: one Op per event, in
// the Jepsen style. Every client action is an invoke followed by exactly one
// completion (ok, fail or info); nemesis actions are start/stop pairs under
// the process NemesisProcess. Times are nanoseconds since the run started,
// read from Go's monotonic clock, shared by every client and the nemesis.
//
// The package uses the standard library only.
package history

// Type says what an Op record is.
type Type string

// The four record types. An info completion means the outcome is unknown:
// the operation may or may not have taken effect. Never turn info into fail.
const (
	Invoke Type = "invoke"
	OK     Type = "ok"
	Fail   Type = "fail"
	Info   Type = "info"
)

// NemesisProcess is the process id of fault records.
const NemesisProcess = -1

// Function names used by the lock workloads and the nemesis. Other
// packages may use other names; these are the ones checkers understand.
const (
	FAcquire = "acquire"
	FRelease = "release"
	FExtend  = "extend"
	FRead    = "read"  // resource read; Value is the value read
	FWrite   = "write" // resource write; Value is the value written, Fence the token sent
	FEnter   = "enter" // api workload: a caller enters the rate-limited API
	FLeave   = "leave" // api workload: the caller leaves it
	FRun     = "run"   // cron workload: one run of the job; Value is the tick
	FLead    = "lead"  // leader workload: one heartbeat; Value is the heartbeat number
	FLost    = "lost"  // a holder learned its lease is lost (info-only record)
	FStart   = "start" // nemesis: a fault starts; Fault names it
	FStop    = "stop"  // nemesis: a fault stops; Fault names it
	FHeal    = "heal"  // nemesis: the final heal of every fault
)

// Op is one record of a history. Zero-valued optional fields are omitted
// from the JSON form.
type Op struct {
	// Index is the record's position in the history, from 0.
	Index int64 `json:"index"`
	// Time is nanoseconds since the run started (monotonic clock).
	Time int64 `json:"time"`
	// Type is invoke, ok, fail or info.
	Type Type `json:"type"`
	// Process is the single-threaded actor; NemesisProcess for faults.
	Process int `json:"process"`
	// Client is the client slot ("c1", ...) of a client record's process.
	Client string `json:"client,omitempty"`
	// F is the operation: acquire, release, extend, read, write, ...
	F string `json:"f"`
	// Key is the lock name or resource key.
	Key string `json:"key,omitempty"`
	// Token is the lock token (the random value stored under the key).
	Token string `json:"token,omitempty"`
	// Fence is the fencing token; 0 means none.
	Fence int64 `json:"fence,omitempty"`
	// Nodes are the nodes that answered (acquire/extend) or that a fault targets.
	Nodes []string `json:"nodes,omitempty"`
	// Value is the value read or written, the cron tick, or a count.
	Value int64 `json:"value,omitempty"`
	// TTL is the lease time-to-live the client asked for, in nanoseconds.
	TTL int64 `json:"ttl,omitempty"`
	// Validity is the client-computed end of its lease, in nanoseconds
	// since the run started; 0 means not known.
	Validity int64 `json:"validity,omitempty"`
	// Fault names the fault of a nemesis record, e.g. "partition".
	Fault string `json:"fault,omitempty"`
	// Clients are the client slots a fault targets (nemesis records), as
	// resolved when the fault started; empty for a fault on nodes only.
	Clients []string `json:"clients,omitempty"`
	// Detail is free text: the fault's shape, a workload's note.
	Detail string `json:"detail,omitempty"`
	// Error is the error text of a fail or info completion.
	Error string `json:"error,omitempty"`
}

// IsNemesis reports whether the record belongs to the nemesis.
func (o Op) IsNemesis() bool { return o.Process == NemesisProcess }

// History is a run's records in index order.
type History []Op
