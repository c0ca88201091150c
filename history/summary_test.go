package history

import "testing"

// nemesisLine finds "process":-1 wherever it stands, after other minus
// signs too, and nothing else.
func TestNemesisLine(t *testing.T) {
	for line, want := range map[string]bool{
		`{"index":3,"process":-1,"f":"start"}`:               true,
		`{"index":3,"f":"start","process":-1}`:               true,
		`{"process":-1 }`:                                    true,
		`{"token":"a-b","value":-1,"process":-1,"f":"stop"}`: true,
		`{"index":3,"process":-10,"f":"start"}`:              false,
		`{"index":3,"process":1,"value":-1}`:                 false,
		`{"index":3,"process":2,"token":"\"process\":-1x"}`:  false,
		`{"index":3,"process":2,"detail":"x-1","f":"start"}`: false,
		`{"index":3,"process":4}`:                            false,
		`-`:                                                  false,
	} {
		if got := nemesisLine([]byte(line)); got != want {
			t.Errorf("%s: %v, want %v", line, got, want)
		}
	}
}
