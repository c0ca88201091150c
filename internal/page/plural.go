package page

import "fmt"

// Plural picks the noun for a count n: one when n is 1, else many.
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by its noun in the right number: "1 stale write",
// "0 stale writes", "3 stale writes". Templates call it as
// {{count .N "run" "runs"}}.
func Count[N ~int | ~int64](n N, one, many string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many))
}
