package lockimpl

import (
	"errors"
	"fmt"
)

// More sentinel errors (see lock.go for the main ones).
var (
	// ErrOutcomeUnknown: an attempt's outcome is unknown (a timeout or a
	// connection error after the command may have been sent). The lock may
	// have been taken, or an extend or release may have taken effect. It
	// deliberately wraps neither ErrNotObtained nor ErrNotHeld, so a
	// history records the operation as info. After an unknown acquire
	// attempt the lock has already tried, best effort, to release what it
	// may have taken.
	ErrOutcomeUnknown = errors.New("lockimpl: outcome unknown")
	// ErrReleased is the reason a lease's Done channel closed on Release.
	ErrReleased = errors.New("lockimpl: lease released")
	// ErrUnknownLock: New was given a name that is not in Names().
	ErrUnknownLock = errors.New("lockimpl: unknown lock")
	// ErrNoClients: a constructor was given no (or too few) clients.
	ErrNoClients = errors.New("lockimpl: no redis clients")
)

// NotObtainedError wraps ErrNotObtained with the lock name, key and
// cause: the caller certainly does not hold the lock.
func NotObtainedError(lock, key string, cause error) error {
	if cause == nil {
		return fmt.Errorf("%w: %s %q", ErrNotObtained, lock, key)
	}
	return fmt.Errorf("%w: %s %q: %w", ErrNotObtained, lock, key, cause)
}

// UnknownError wraps ErrOutcomeUnknown with the lock name, operation
// ("acquire", "release", "extend"...), key and cause.
func UnknownError(lock, op, key string, cause error) error {
	return fmt.Errorf("%w: %s %s %q: %w", ErrOutcomeUnknown, lock, op, key, cause)
}

// NotHeldError wraps ErrNotHeld with the lock name, operation and key.
func NotHeldError(lock, op, key string) error {
	return fmt.Errorf("%w: %s %s %q", ErrNotHeld, lock, op, key)
}
