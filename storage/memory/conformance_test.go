package memory

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/webhook"
	"github.com/earshot-dev/earshot/webhook/webhooktest"
)

func TestConformance(t *testing.T) {
	t.Run("Store", func(t *testing.T) {
		drivertest.RunStoreTests(t, func(t *testing.T) driver.Store { return New() })
	})
	t.Run("UploadStore", func(t *testing.T) {
		drivertest.RunUploadStoreTests(t, func(t *testing.T) driver.UploadStore { return New() })
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue { return New() })
	})
	t.Run("LeasedQueue", func(t *testing.T) {
		queuetest.Run(t,
			drivertest.JobQueue(func(t *testing.T) driver.Store { return New() }),
			webhooktest.DeliveryQueue(func(t *testing.T) webhook.Queue { return New() }))
	})
	t.Run("BlobStore", func(t *testing.T) {
		drivertest.RunBlobStoreTests(t, func(t *testing.T) driver.BlobStore { return NewBlobStore() })
	})
}
