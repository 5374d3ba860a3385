"""The lessons' own machinery: the ``%%npu`` cell magic, recording NPU outputs on Ascend hardware, the labs'
automatic checks, quizzes and exercises, the measuring lessons and the audit of their verdicts, the lessons' run-time
claims, the check that every displayed table is rendered, and the English edition (``edition``, ``glossary``).
The site build lives in ``npulab.site``, lint-npu in ``npulab.lint``, workshop support in ``npulab.workshop``."""
