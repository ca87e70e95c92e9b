package lemur_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// Example_goSDK is the README's LeMUR walkthrough: the official Go SDK
// pointed at an Earshot server whose operator set EARSHOT_LLM_URL and
// EARSHOT_LLM_MODEL. (It compiles with the tests; it needs a server to
// run.)
func Example_goSDK() {
	client := aai.NewClientWithOptions(
		aai.WithAPIKey("your-earshot-api-key"),
		aai.WithBaseURL("http://localhost:8080"),
	)
	ctx := context.Background()
	transcriptID := "5551722-f677-48a6-9287-39c0aafd9ac1" // a completed transcript of your project

	// A task of your own.
	task, err := client.LeMUR.Task(ctx, aai.LeMURTaskParams{
		Prompt: aai.String("List the decisions made in this meeting, with who made them."),
		LeMURBaseParams: aai.LeMURBaseParams{
			TranscriptIDs: []string{transcriptID},
			Context:       "A weekly planning meeting",
			MaxOutputSize: aai.Int64(500),
			Temperature:   aai.Float64(0.2),
		},
	})
	var apiErr aai.APIError
	if errors.As(err, &apiErr) {
		// 400: a bad request, or no model configured on the server;
		// 502/503/504: the model server failed, is loading, or was too slow.
		log.Fatalf("LeMUR: %d %s", apiErr.Status, apiErr.Message)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*task.Response)

	// Questions, one answer each; answer_options constrain the answer.
	qa, err := client.LeMUR.Question(ctx, aai.LeMURQuestionAnswerParams{
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{transcriptID}},
		Questions: []aai.LeMURQuestion{
			{Question: aai.String("Was a budget agreed?"), AnswerOptions: []string{"Yes", "No"}},
			{Question: aai.String("Who will send the minutes?"), AnswerFormat: aai.String("a name")},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range qa.Response {
		fmt.Printf("%s %s\n", *a.Question, *a.Answer)
	}

	// Summary and action items.
	summary, err := client.LeMUR.Summarize(ctx, aai.LeMURSummaryParams{
		AnswerFormat:    aai.String("TLDR"),
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{transcriptID}},
	})
	if err != nil {
		log.Fatal(err)
	}
	items, err := client.LeMUR.ActionItems(ctx, aai.LeMURActionItemsParams{
		LeMURBaseParams: aai.LeMURBaseParams{TranscriptIDs: []string{transcriptID}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*summary.Response, *items.Response)

	// The answer again later, then purged.
	var again aai.LeMURTaskResponse
	if err := client.LeMUR.GetResponseData(ctx, *task.RequestID, &again); err != nil {
		log.Fatal(err)
	}
	if _, err := client.LeMUR.PurgeRequestData(ctx, *task.RequestID); err != nil {
		log.Fatal(err)
	}
}
