package topicdata

import "testing"

func TestPostText(t *testing.T) {
	post := "From: someone@example.edu\nSubject: Re: Re: Saturn pricing\nLines: 9\n\n" +
		"In article <1@x>, fred@y writes:\n> quoted line about dealers\n|> more quoting\n" +
		"The dealer made two thousand on the car.\n\n--\nFred, signature line\n"
	if got, want := postText(post), "Saturn pricing The dealer made two thousand on the car."; got != want {
		t.Fatalf("postText = %q, want %q", got, want)
	}
	long := "Subject: x\n\n"
	for range NewsgroupWords + 50 {
		long += "word "
	}
	if n := len(postText(long)) / len("word "); n > NewsgroupWords {
		t.Fatalf("kept about %d words, want at most %d", n, NewsgroupWords)
	}
}
