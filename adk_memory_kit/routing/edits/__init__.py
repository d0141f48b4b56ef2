"""What the user says about their memory, read and acted on: updates supersede, "please forget"
deletes (after asking, when the match is uncertain). Import the module you need; this package
imports none of them."""
