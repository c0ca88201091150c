package docker

import (
	"errors"
	"strings"
	"testing"
)

// An image Docker cannot fetch gets the hint to build lockstorm/redis:7;
// other errors get none.
func TestPullHint(t *testing.T) {
	for _, msg := range []string{
		`generic container: create container: Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host`,
		`Error response from daemon: pull access denied for nosuch, repository does not exist`,
		`Error response from daemon: manifest unknown`,
	} {
		if h := pullHint(errors.New(msg)); !strings.Contains(h, "make docker-image") || !strings.Contains(h, "--docker-image") {
			t.Errorf("%q: hint %q", msg, h)
		}
	}
	if h := pullHint(errors.New("port is already allocated")); h != "" {
		t.Errorf("port conflict got a pull hint: %q", h)
	}
}
