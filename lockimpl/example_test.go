package lockimpl_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/redis/go-redis/v9"
)

// A lock is picked by name (as the CLI does) over one client per node.
// Clients should come from lockimpl.NewClient (no silent retries, context
// deadlines honoured).
func ExampleNew() {
	addrs := []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}
	clients := make([]redis.UniversalClient, len(addrs))
	for i, a := range addrs {
		clients[i] = lockimpl.NewClient(a)
	}
	lock, err := lockimpl.New("redlock", clients, lockimpl.Options{TTL: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	lease, err := lock.Acquire(ctx, "jobs")
	switch {
	case errors.Is(err, lockimpl.ErrNotObtained):
		fmt.Println("busy") // certain: we do not hold it
		return
	case err != nil:
		fmt.Println("unknown outcome:", err) // we may have held it briefly
		return
	}
	defer lock.Release(context.Background(), lease)
	select {
	case <-lease.Done():
		// lost: stop working
	case <-time.After(time.Until(lease.Validity())):
		// the lease's promise ends here
	}
}
