// Package protocol is the line protocol between the harness and a client
// that runs as a process (docs/client-protocol.md): JSON requests on the
// client's stdin, one answer per request id and unsolicited watchdog
// events on its stdout. It holds the message types with their encoding
// and validation, Pending (the harness side's check that every id is
// answered exactly once), Serve (any lockimpl.Locker behind the
// protocol) and Env (the client's environment).
package protocol
