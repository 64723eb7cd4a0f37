"""Practice: the questions a step asks (every cell it computes, forward or in the backward walk, or a
seeded sample), grading a learner's answer from the operands as shown, the ladder of hints, and the lesson
file (tinytui-lesson/1). Built on lesson/why's provenance; imports the model and model/io; no UI."""
