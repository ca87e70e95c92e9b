package realtime_test

import (
	"fmt"
	"net/http"
	"runtime"

	"github.com/earshot-dev/earshot/realtime"
)

// A LoadAdmission admits sessions while the cost of recognition leaves
// room on the cores; the next is refused (the Handler closes it with
// 1013). Until it has measured the cost it assumes InitialCost: here 0.3
// CPU-seconds per audio second, so 0.9 x 2 cores / 0.3 = 6 sessions.
func ExampleLoadAdmission() {
	a, err := realtime.NewLoadAdmission(realtime.LoadAdmissionConfig{Cores: 2, InitialCost: 0.3})
	if err != nil {
		panic(err)
	}
	var tickets []realtime.Ticket
	for {
		t, err := a.Admit()
		if err != nil {
			fmt.Println(err)
			break
		}
		tickets = append(tickets, t)
	}
	fmt.Println(len(tickets), "admitted")
	tickets[0].Release() // the Handler does this when a session's stream closes
	if _, err := a.Admit(); err == nil {
		fmt.Println("one more once a session ended")
	}
	// Output:
	// the server is at capacity: 6 live sessions fill 90% of 2 cores at 0.300 CPU-seconds per audio second; try again later
	// 6 admitted
	// one more once a session ended
}

// A server sizes its recognizer's stream pool with CapacityFor and caps
// the admission at the pool, so that a session the pool could not take is
// refused at once instead of waiting Config.StreamWait.
func ExampleCapacityFor() {
	streams := realtime.CapacityFor(runtime.NumCPU(), 0.1)
	adm, err := realtime.NewLoadAdmission(realtime.LoadAdmissionConfig{MaxSessions: streams})
	if err != nil {
		panic(err)
	}
	h, err := realtime.NewHandler(realtime.Config{
		Recognizer:   silentRecognizer{}, // e.g. isolate.New(isolate.Config{..., Processes: streams})
		Authenticate: func(*http.Request) (string, bool) { return "project", true },
		Admission:    adm,
	})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	fmt.Println(realtime.CapacityFor(2, 0.1), realtime.CapacityFor(16, 0.1), realtime.CapacityFor(2, 0.15))
	// Output: 18 144 12
}
