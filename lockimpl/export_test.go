package lockimpl

// Internals the external tests (package lockimpl_test) read.

// QueueKey is the fair locks' queue key of a lock key.
var QueueKey = queueKey
