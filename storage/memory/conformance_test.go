package memory

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
	"github.com/earshot-dev/earshot/webhook"
	"github.com/earshot-dev/earshot/webhook/webhooktest"
)

func TestConformance(t *testing.T) {
	t.Run("Store", func(t *testing.T) {
		transcribetest.RunStoreTests(t, func(t *testing.T) transcribe.Store { return New() })
	})
	t.Run("UploadStore", func(t *testing.T) {
		transcribetest.RunUploadStoreTests(t, func(t *testing.T) transcribe.UploadStore { return New() })
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue { return New() })
	})
	t.Run("LeasedQueue", func(t *testing.T) {
		queuetest.Run(t,
			transcribetest.JobQueue(func(t *testing.T) transcribe.Store { return New() }),
			webhooktest.DeliveryQueue(func(t *testing.T) webhook.Queue { return New() }))
	})
	t.Run("BlobStore", func(t *testing.T) {
		transcribetest.RunBlobStoreTests(t, func(t *testing.T) transcribe.BlobStore { return NewBlobStore() })
	})
}
