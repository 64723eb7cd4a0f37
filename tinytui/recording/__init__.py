"""Recording a session and playing it back: the event log (lesson.jsonl), the transcript people read
(lesson.txt), and replay. Imports the session and the model; never Textual."""
