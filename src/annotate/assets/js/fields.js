// goldgate annotate: the fields of the label items the shared sections edit (a
// requirement, an inferred requirement, an issue) and the name each field is shown with.

export const REQ_FIELDS = [
  'id',
  'title',
  'type',
  'actor',
  'action',
  'condition',
  'acceptance_criteria',
  'priority',
  'source_messages',
  'rationale',
  'confidence',
];
export const FIELD_LABEL = {
  id: 'Id',
  title: 'Title',
  type: 'Type',
  actor: 'Actor',
  action: 'Action',
  condition: 'Condition',
  acceptance_criteria: 'Acceptance criteria',
  priority: 'Priority',
  source_messages: 'Source messages',
  rationale: 'Rationale',
  confidence: 'Confidence',
  inference_type: 'Inference type',
  triggered_by: 'Triggered by',
  necessity: 'Necessity',
  issue_type: 'Issue type',
  severity: 'Severity',
  field: 'Field',
  location: 'Location',
  message: 'Message',
  suggested_fix: 'Suggested fix',
  implicit: 'Implicit',
};
export const ISSUE_FIELDS = ['issue_type', 'severity', 'field', 'location', 'message', 'suggested_fix', 'confidence'];
export const INF_FIELDS = ['inference_type', 'triggered_by', 'necessity', 'rationale', 'confidence'];
