package compare

import "github.com/lockstorm/lockstorm/internal/page"

// lostUpdates is a count of lost updates with its noun: "1 lost update",
// "3 lost updates", "? lost updates" when unknown (negative).
func lostUpdates(n int64) string {
	return page.Lost(n) + " " + page.Plural(n, "lost update", "lost updates")
}
