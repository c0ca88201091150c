package resource_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/resource"
)

// The resource is reached through each client's own proxy, so a cut or a
// delay on that link reaches it too.
func TestResourceBehindProxies(t *testing.T) {
	s, err := resource.Start(resource.Config{Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := clustertest.Start(t, 1, "c1", "c2")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.AddUpstream(ctx, "res", s.Addr()); err != nil {
		t.Fatal(err)
	}
	addr1, _ := c.Addr("c1", "res")
	addr2, _ := c.Addr("c2", "res")
	c1, c2 := resource.NewClient(addr1), resource.NewClient(addr2)
	defer c1.Close()
	defer c2.Close()
	if err := c1.Write(ctx, "x", 1, 1); err != nil {
		t.Fatalf("write through proxy: %v", err)
	}
	if err := c.Cut(ctx, cluster.Links("c1", "res")); err != nil {
		t.Fatal(err)
	}
	short, scancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = c1.Write(short, "x", 2, 2)
	scancel()
	if err == nil {
		t.Fatal("write through a cut link succeeded")
	}
	if err := c2.Write(ctx, "x", 3, 3); err != nil {
		t.Fatalf("other client's link must still work: %v", err)
	}
	if err := c.Heal(ctx, cluster.Links("c1", "res")); err != nil {
		t.Fatal(err)
	}
	if v, err := c1.Read(ctx, "x"); err != nil || v != 3 {
		t.Fatalf("after heal: read %d, %v; want 3", v, err)
	}
}
