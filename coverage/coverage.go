// Package coverage says what a run's faults touched: for each fault
// window, the clients or nodes it hit and whether a hit client held a
// lease, waited to acquire, or had a write in flight at the fault's start
// or during it; per kind, how many faults were planned, applied and
// touched a holder, a waiter or a write. A green verdict is only worth
// what its faults exercised (see Report.Shortfall).
package coverage

// Report is a run's fault coverage, stored under "coverage" in
// results.json.
type Report struct{}
