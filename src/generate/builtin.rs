//! TEMPORARY placeholder with the agreed API until the builtin branch is merged.
use super::{GENERATOR_VERSION, GenerateError, WidgetRequest};

pub struct Templates;
impl Templates {
    pub fn embedded() -> Templates {
        Templates
    }
    pub fn from_dir(_dir: &std::path::Path) -> Result<Templates, GenerateError> {
        Ok(Templates)
    }
    pub fn fingerprint(&self) -> String {
        crate::model::sha256_hex(GENERATOR_VERSION)
    }
}
pub fn template_version(_t: &Templates) -> String {
    GENERATOR_VERSION.to_string()
}
pub fn runtime_js() -> &'static str {
    ""
}
pub fn render(req: &WidgetRequest<'_>, _t: &Templates) -> Result<String, GenerateError> {
    let data = serde_json::to_string(&req.tool.hashed_definition())
        .unwrap_or_default()
        .replace('<', "\\u003c");
    Ok(format!(
        "{}<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head><body>\
<script type=\"application/json\" id=\"d\">{data}</script>\
<script>window.parent.postMessage({{jsonrpc:\"2.0\",id:1,method:\"ui/initialize\",params:{{}}}},\"*\");\
window.addEventListener(\"message\",function(e){{if(e.data&&e.data.method===\"ui/notifications/tool-result\"){{}}}});</script>\
</body></html>\n",
        crate::model::header_comment(&req.tool.name)
    ))
}
