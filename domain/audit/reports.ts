// The report renderers the audit context needs (adapters/reports implements them).
export interface ReportEntry {
  id: number;
  timestamp: string;
  username: string | null;
  ip_address: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  resource_name: string | null;
  status: string;
  error_message: string | null;
  method: string | null;
  endpoint: string | null;
  response_code: number | null;
  duration_ms: number | null;
  request_id: string | null;
}

export interface RenderedReport {
  body: Buffer | string;
  fileName: string;
  contentType: string;
}

export interface ReportRenderer {
  activityCsv(entries: ReportEntry[], period: { start: string; end: string }): Promise<RenderedReport>;
  userAccessPdf(input: { user: { id: number; username: string; role: string; email: string | null }; period: { start: string; end: string }; generatedAt: string; entries: ReportEntry[] }): Promise<RenderedReport>;
}
