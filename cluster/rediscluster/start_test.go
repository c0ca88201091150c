package rediscluster_test

import (
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"testing"
	"time"
)

func TestStartForms(t *testing.T) {
	c := start(t, rediscluster.Config{})
	s, err := c.State(ctxT(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", s.Nodes)
}
