import { performance } from 'node:perf_hooks';
import { startFakeUpstream } from '../test/support/fake-upstreams.js';
import { startTestNode } from '../test/support/node.js';
const fake = await startFakeUpstream();
const t = await startTestNode();
const ok = async (m, p, b) => { const r = await t.admin.request(m, p, b === undefined ? {} : { body: b }); if (r.status >= 300) throw new Error(JSON.stringify(r.body)); return r.body.data; };
await ok('POST', '/api/v1/plugins/mcp-passthrough/enable'); await t.restart();
await ok('PUT','/api/v1/system/settings',{rate_limit_enabled:false});
await ok('POST','/api/v1/plugins/mcp-passthrough/configure',{set:{mode:'open'},provider:{id:'f',preset:'openai-compatible',endpoint:fake.openaiUrl,models:[{id:'b',enabled:true,pricing_mode:'manual'}]},active:{provider:'f',model:'b'}});
const key = await ok('POST','/api/v1/plugins/mcp-passthrough/key-create',{label:'x'});
const url = `${t.node.baseUrl}/p/mcp-passthrough/mcp`;
const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key.token}` };
const init = await fetch(url,{method:'POST',headers:base,body:JSON.stringify({jsonrpc:'2.0',id:0,method:'initialize',params:{protocolVersion:'2025-11-25',capabilities:{},clientInfo:{name:'b',version:'1'}}})}); await init.text();
const headers={...base,'mcp-session-id':init.headers.get('mcp-session-id'),'mcp-protocol-version':'2025-11-25'};
await (await fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',method:'notifications/initialized'})})).text();
async function time(label, fn, n=400){ for(let i=0;i<50;i++) await fn(); const a=[]; for(let i=0;i<n;i++){const t0=performance.now(); await fn(); a.push(performance.now()-t0);} a.sort((x,y)=>x-y); console.log(label, a[Math.floor(n/2)].toFixed(3)); }
let id=1;
const tool=(name,args)=>fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',id:id++,method:'tools/call',params:{name,arguments:args}})}).then(r=>r.text());
console.log((await tool('chat.completion',{messages:[{role:'user',content:'hi'}],max_output_tokens:16})).slice(0,300));
for (let round=0; round<2; round++) {
await time('healthz', ()=>fetch(`${t.node.baseUrl}/healthz`).then(r=>r.text()));
await time('direct upstream', ()=>fetch(`${fake.openaiUrl}/chat/completions`,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({model:'b',messages:[{role:'user',content:'hi'}],max_tokens:16})}).then(r=>r.text()));
await time('ping', ()=>fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',id:id++,method:'ping'})}).then(r=>r.text()));
await time('balance.check', ()=>tool('balance.check',{}));
await time('chat.completion', ()=>tool('chat.completion',{messages:[{role:'user',content:'hi'}],max_output_tokens:16}));
}
await t.destroy(); await fake.close(); process.exit(0);
