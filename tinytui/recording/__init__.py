"""Recording a session and playing it back. Imports the session, the report and the model; never Textual.

event_kinds (every kind of event defined once: encode, decode, apply, its words), event_log (the
lesson.jsonl lines), log_values (reading them without trusting them), recorded_model, state_digest and
cell_changes (what a line holds of the model and its weights), recording_words (names and sentences), recorder
(writes lesson.txt and lesson.jsonl as events happen), transcript (the text people read),
embedded_log (the event data lesson.txt carries so that it alone replays), replay (check a recording
whole, then re-apply it), handout (a recording as Markdown)."""
