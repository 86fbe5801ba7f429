export { environmentFor } from "./template-environment";
export type { ExpressionScope, TargetKind } from "./template-environment";
export {
  checkTemplateExpression,
  evaluateTemplateCondition,
  evaluateTemplateExpression,
  toCelObject,
  TemplateExpressionError,
} from "./template-expression";
export type { CelObject, ResultType, TemplateInputs } from "./template-expression";
export { CelCostBudget, COST_LIMIT_PER_EVALUATION, COST_LIMIT_PER_SET } from "./cost";
